// The only reader of process.env. Invalid configuration stops start-up with a message that names
// the variable; nothing else in the code base looks at the environment.
import { availableParallelism } from 'node:os';
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  mongodbUrl?: string;
  /** Embedded store: `normal` survives a crash of the process, `full` a power loss too (docs/operations.md). */
  storeSync: 'normal' | 'full';
  adminToken?: string;
  callbackAllowPrivate: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Lifetime of user and client_credentials access tokens, seconds; 0 = never expire. */
  accessTokenTtl: number;
  /** Worker threads that own the user shards. */
  shards: number;
  /**
   * How long the service must have been up after a dwell deadline before the clock fires it, ms:
   * the time a phone's late points (older than the deadline, showing it left) have to arrive.
   */
  dwellGraceMs: number;
  /** How long an access token's documents are reused in memory, ms (src/auth/token-cache.ts); 0 = off. */
  authCacheTtlMs: number;
  /** After a webhook secret rotation, how long callbacks are signed with the previous secret too, seconds. */
  webhookSecretOverlapS: number;
  /** Delivered and dead callbacks (outbox rows and their attempts) are removed this many days after their last change; 0 = kept. */
  deliveryRetentionDays: number;
  /** trigger_history rows, messages and location history points are removed this many days after their date; 0 = kept. */
  historyRetentionDays: number;
  /** Seconds between retention sweeps (src/services/retention.ts). */
  retentionSweepS: number;
  /** Callbacks in flight at once (src/delivery/delivery-loop.ts). */
  callbackConcurrency: number;
  /** Of those, callbacks to one receiver (scheme, host, port) in their HTTP phase at once. */
  callbackEndpointConcurrency: number;
  /** Push providers (src/delivery/push/); each is off unless all of its variables are set. */
  push?: PushConfig;
  /** Failed password checks per account per window before a 429 (src/auth/limits.ts); 0 = no limit. */
  authAccountFailures: number;
  /** Failed client-secret checks per client_id per window before a 429; 0 = no limit. */
  authClientFailures: number;
  /** Failed password or secret checks per source address per window; 0 (the default) = off. */
  authAddressFailures: number;
  /** The failure-counting window, seconds, from a key's first failure. */
  authFailureWindowS: number;
}

export interface PushConfig {
  /** FCM HTTP v1: FCM_PROJECT_ID and FCM_SERVICE_ACCOUNT_FILE (the Google service-account JSON). */
  fcm?: { projectId: string; serviceAccountFile: string };
  /** APNs token auth: APNS_KEY_FILE (.p8), APNS_KEY_ID, APNS_TEAM_ID, APNS_TOPIC (the bundle id). */
  apns?: { keyFile: string; keyId: string; teamId: string; topic: string };
}

/** A provider is on when all its variables are set, off when none is; a partial set is a mistake. */
function group<K extends string>(env: NodeJS.ProcessEnv, names: Record<K, string>): Record<K, string> | undefined {
  const entries = Object.entries(names) as Array<[K, string]>;
  const missing = entries.filter(([, v]) => !env[v]).map(([, v]) => v);
  if (missing.length === entries.length) return undefined;
  if (missing.length > 0) throw new ConfigError(`${missing.join(', ')} must be set too (or unset ${entries.map(([, v]) => v).filter((v) => !missing.includes(v)).join(', ')})`);
  return Object.fromEntries(entries.map(([k, v]) => [k, env[v] as string])) as Record<K, string>;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} must be "true" or "false", got "${raw}"`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const mongodbUrl = env.MONGODB_URL || undefined;
  if (mongodbUrl && !/^mongodb(\+srv)?:\/\//.test(mongodbUrl)) {
    throw new ConfigError('MONGODB_URL must start with mongodb:// or mongodb+srv://');
  }
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters');
  }
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const storeSync = (env.STORE_SYNC || 'normal') as Config['storeSync'];
  if (storeSync !== 'normal' && storeSync !== 'full') throw new ConfigError(`STORE_SYNC must be "normal" or "full", got "${storeSync}"`);
  const host = env.HOST || '127.0.0.1';
  if (/\s/.test(host)) throw new ConfigError(`HOST is not a host name: "${host}"`);
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    host,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    mongodbUrl,
    storeSync,
    adminToken,
    callbackAllowPrivate: bool(env, 'CALLBACK_ALLOW_PRIVATE'),
    logLevel,
    accessTokenTtl: int(env, 'ACCESS_TOKEN_TTL', 3600, 0, 10 * 365 * 86400),
    shards: int(env, 'SHARDS', defaultShards(), 1, 64),
    dwellGraceMs: int(env, 'DWELL_GRACE_MS', DEFAULT_DWELL_GRACE_MS, 0, 3_600_000),
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 5000, 0, 60_000),
    webhookSecretOverlapS: int(env, 'WEBHOOK_SECRET_OVERLAP_S', 86_400, 0, 30 * 86_400),
    deliveryRetentionDays: int(env, 'DELIVERY_RETENTION_DAYS', 30, 0, 3650),
    historyRetentionDays: int(env, 'HISTORY_RETENTION_DAYS', 0, 0, 36_500),
    retentionSweepS: int(env, 'RETENTION_SWEEP_S', 600, 1, 86_400),
    ...callbackConcurrency(env),
    authAccountFailures: int(env, 'AUTH_ACCOUNT_FAILURES', 10, 0, 1_000_000),
    authClientFailures: int(env, 'AUTH_CLIENT_FAILURES', 20, 0, 1_000_000),
    // Off unless asked for: behind a proxy (or a carrier's NAT) many callers share one address.
    authAddressFailures: int(env, 'AUTH_ADDRESS_FAILURES', 0, 0, 1_000_000),
    authFailureWindowS: int(env, 'AUTH_FAILURE_WINDOW_S', 900, 1, 86_400),
    push: {
      fcm: group(env, { projectId: 'FCM_PROJECT_ID', serviceAccountFile: 'FCM_SERVICE_ACCOUNT_FILE' }),
      apns: group(env, { keyFile: 'APNS_KEY_FILE', keyId: 'APNS_KEY_ID', teamId: 'APNS_TEAM_ID', topic: 'APNS_TOPIC' }),
    },
  };
}

/** A phone's backlog after a short gap in coverage, or after a restart, arrives within this. */
export const DEFAULT_DWELL_GRACE_MS = 30_000;

/**
 * 192 callbacks in flight, up to half of them to one receiver. A slot is held from the lease to
 * the outcome's writes, several turns of a main thread that is also serving location updates: with
 * 64, a batch run at 96 connections left callbacks queued for seconds (harness p99 9.0-9.3 s),
 * with 192 p99 191 ms; at 32 connections both deliver in the same time.
 */
export const DEFAULT_CALLBACK_CONCURRENCY = 192;

/** The per-receiver share when only the total is given: half of it, at least one. */
export const defaultEndpointConcurrency = (all: number) => Math.max(1, Math.floor(all / 2));

function callbackConcurrency(env: NodeJS.ProcessEnv): Pick<Config, 'callbackConcurrency' | 'callbackEndpointConcurrency'> {
  const all = int(env, 'CALLBACK_CONCURRENCY', DEFAULT_CALLBACK_CONCURRENCY, 1, 4096);
  const perEndpoint = int(env, 'CALLBACK_ENDPOINT_CONCURRENCY', defaultEndpointConcurrency(all), 1, 4096);
  if (perEndpoint > all) throw new ConfigError(`CALLBACK_ENDPOINT_CONCURRENCY (${perEndpoint}) must not exceed CALLBACK_CONCURRENCY (${all})`);
  return { callbackConcurrency: all, callbackEndpointConcurrency: perEndpoint };
}

/**
 * One shard thread per core left beside the main thread (at most 8). On a 2-core machine that is
 * one: every engine call costs the main thread a postMessage and a wake-up per shard, and a
 * second shard only competes with the main thread for the same two cores (bench-ingest, 2 cores,
 * 1 vs 2 shards: main-thread CPU 69-72 vs 71-78 µs per single-point request, batches of 50
 * 65-84k vs 42-77k points/s).
 */
function defaultShards(): number {
  return Math.min(8, Math.max(1, availableParallelism() - 1));
}
