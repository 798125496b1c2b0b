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
  /** A token only /metrics takes (the admin token works there too). */
  metricsToken?: string;
  callbackAllowPrivate: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Lifetime of user access tokens, seconds; 0 = never expire. */
  accessTokenTtl: number;
  /**
   * Lifetime of application tokens from client_credentials, seconds; 0 (the default) = never expire,
   * as the historical developer-site token. Set, a refresh token comes with each one.
   */
  appTokenTtl: number;
  /** Worker threads that own the user shards. */
  shards: number;
  /** Threads that run trigger/replay (started with the first replay, ended when idle). */
  replayThreads: number;
  /** A replay's time budget, ms: one still running then is stopped (a 503). */
  replayTimeoutMs: number;
  /**
   * How long after a start a dwell deadline that passed while the service was down waits before
   * the clock fires it, ms: the time a phone's backlog (points older than the deadline, showing it
   * left) has to arrive. Counted from the first start after the deadline (engine/dwell-clock.ts).
   */
  dwellGraceMs: number;
  /** While the service runs, how long past a dwell deadline the clock waits for late points, ms. */
  dwellToleranceMs: number;
  /** How long an access token's documents are reused in memory, ms (src/auth/token-cache.ts); 0 = off. */
  authCacheTtlMs: number;
  /** After a webhook secret rotation, how long callbacks are signed with the previous secret too, seconds. */
  webhookSecretOverlapS: number;
  /** Delivered and dead callbacks lose their attempt log (and a dead one its payload) this many days after their last change; 0 = kept. */
  deliveryRetentionDays: number;
  /** Firings (trigger/history), messages and location history points are removed this many days after their date; 0 = kept. */
  historyRetentionDays: number;
  /** Seconds between retention sweeps (src/services/retention.ts). */
  retentionSweepS: number;
  /** Record the decision timeline (trigger/timeline); off saves its writes on the hot path. */
  timeline: boolean;
  /** Timeline entries are removed this many days after their date; 0 = kept (up to the per-pair cap). */
  timelineRetentionDays: number;
  /** Timeline entries kept per (user, trigger, place); older ones are pruned as new ones come. */
  timelineMaxPerPair: number;
  /** Callbacks in flight at once (src/delivery/delivery-loop.ts). */
  callbackConcurrency: number;
  /** Of those, callbacks to one receiver (scheme, host, port) in their HTTP phase at once. */
  callbackEndpointConcurrency: number;
  /** Push providers (src/delivery/push/); each is off unless all of its variables are set. */
  push?: PushConfig;
  /** log2 of scrypt's N for new password hashes (src/auth/secrets.ts); stored hashes keep theirs. */
  passwordHashCost: number;
  /** Failed password checks per account per window before a 429 (src/auth/limits.ts); 0 = no limit. */
  authAccountFailures: number;
  /** Failed client-secret checks per client_id per window before a 429; 0 = no limit. */
  authClientFailures: number;
  /** Failed password or secret checks per source address per window; 0 (the default) = off. */
  authAddressFailures: number;
  /** Unknown share tokens (share/*) per source address per AUTH_FAILURE_WINDOW_S; 0 = no limit. */
  shareTokenFailures: number;
  /** The failure-counting window, seconds, from a key's first failure. */
  authFailureWindowS: number;
  /**
   * How long a streaming socket (Socket.IO) may stay connected without a subscription, ms: from
   * connecting, and again once its last subscription has ended (plugins/streaming.ts).
   */
  streamAuthTimeoutMs: number;
  /** Streaming sockets open at once from one remote address; past it a connection is refused. 0 = no cap. */
  streamConnectionsPerAddress: number;
  /**
   * A raster tile URL template (`https://…/{z}/{x}/{y}.png`) the inspector's browser draws under its
   * maps (OpenStreetMap's by default); none (`INSPECTOR_TILE_URL=off`): no tiles, the maps work offline.
   */
  inspectorTileUrl?: string;
  /** The tile source's attribution, shown on every map as text, and the page it links to (if any). */
  inspectorTileAttribution?: { text: string; url?: string };
  /**
   * The service's public base URL (`https://geo.example.com`, a path prefix allowed, no trailing
   * slash): what the absolute URLs it hands out start with (share links, Location headers). None:
   * the address it listens on (http/public-url.ts), never a request's Host header.
   */
  publicUrl?: string;
  /**
   * What loading noticed but did not refuse, one message each: variables that look like settings of
   * this service (a misspelling, a guessed name) but are not read. server.ts logs them.
   */
  warnings: string[];
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
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) {
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  }
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const storeSync = (env.STORE_SYNC || 'normal') as Config['storeSync'];
  if (storeSync !== 'normal' && storeSync !== 'full') throw new ConfigError(`STORE_SYNC must be "normal" or "full", got "${storeSync}"`);
  const host = env.HOST || '127.0.0.1';
  const passwordHashCost = int(env, 'PASSWORD_HASH_COST', DEFAULT_PASSWORD_HASH_COST, 10, 20);
  if (/\s/.test(host)) throw new ConfigError(`HOST is not a host name: "${host}"`);
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    host,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    mongodbUrl,
    storeSync,
    adminToken,
    metricsToken,
    callbackAllowPrivate: bool(env, 'CALLBACK_ALLOW_PRIVATE'),
    logLevel,
    accessTokenTtl: int(env, 'ACCESS_TOKEN_TTL', 3600, 0, 10 * 365 * 86400),
    appTokenTtl: int(env, 'APP_TOKEN_TTL', 0, 0, 10 * 365 * 86400),
    shards: int(env, 'SHARDS', defaultShards(), 1, 64),
    replayThreads: int(env, 'REPLAY_THREADS', defaultReplayThreads(), 1, 8),
    replayTimeoutMs: int(env, 'REPLAY_TIMEOUT_MS', 30_000, 1000, 600_000),
    dwellGraceMs: int(env, 'DWELL_GRACE_MS', DEFAULT_DWELL_GRACE_MS, 0, 3_600_000),
    dwellToleranceMs: int(env, 'DWELL_TOLERANCE_MS', DEFAULT_DWELL_TOLERANCE_MS, 0, 3_600_000),
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 5000, 0, 60_000),
    webhookSecretOverlapS: int(env, 'WEBHOOK_SECRET_OVERLAP_S', 86_400, 0, 30 * 86_400),
    deliveryRetentionDays: int(env, 'DELIVERY_RETENTION_DAYS', 30, 0, 3650),
    historyRetentionDays: int(env, 'HISTORY_RETENTION_DAYS', 0, 0, 36_500),
    retentionSweepS: int(env, 'RETENTION_SWEEP_S', 600, 1, 86_400),
    timeline: env.TIMELINE === undefined || env.TIMELINE === '' ? true : bool(env, 'TIMELINE'),
    timelineRetentionDays: int(env, 'TIMELINE_RETENTION_DAYS', 30, 0, 36_500),
    timelineMaxPerPair: int(env, 'TIMELINE_MAX_PER_PAIR', 200, 10, 100_000),
    ...callbackConcurrency(env),
    authAccountFailures: int(env, 'AUTH_ACCOUNT_FAILURES', 10, 0, 1_000_000),
    authClientFailures: int(env, 'AUTH_CLIENT_FAILURES', 20, 0, 1_000_000),
    // Off unless asked for: behind a proxy (or a carrier's NAT) many callers share one address.
    authAddressFailures: int(env, 'AUTH_ADDRESS_FAILURES', 0, 0, 1_000_000),
    authFailureWindowS: int(env, 'AUTH_FAILURE_WINDOW_S', 900, 1, 86_400),
    shareTokenFailures: int(env, 'SHARE_TOKEN_FAILURES', 100, 0, 1_000_000),
    streamAuthTimeoutMs: int(env, 'STREAM_AUTH_TIMEOUT_MS', 10_000, 100, 600_000),
    // Behind a proxy every client shares its address: raise it there.
    streamConnectionsPerAddress: int(env, 'STREAM_CONNECTIONS_PER_ADDRESS', 100, 0, 1_000_000),
    passwordHashCost,
    ...inspectorTiles(env),
    publicUrl: publicUrl(env.PUBLIC_URL),
    push: {
      fcm: group(env, { projectId: 'FCM_PROJECT_ID', serviceAccountFile: 'FCM_SERVICE_ACCOUNT_FILE' }),
      apns: group(env, { keyFile: 'APNS_KEY_FILE', keyId: 'APNS_KEY_ID', teamId: 'APNS_TEAM_ID', topic: 'APNS_TOPIC' }),
    },
    warnings: [
      ...unknownVariableWarnings(Object.keys(env)),
      ...(passwordHashCost < DEFAULT_PASSWORD_HASH_COST
        ? [`PASSWORD_HASH_COST=${passwordHashCost} is below the recommended ${DEFAULT_PASSWORD_HASH_COST}: new passwords are cheaper to guess`]
        : []),
      ...(!env.PUBLIC_URL && (host === '0.0.0.0' || host === '::')
        ? [`PUBLIC_URL is not set and HOST=${host} listens on every address: share links and Location headers name the loopback address; set PUBLIC_URL to the URL clients reach the service at`]
        : []),
    ],
  };
}

/** Every variable loadConfig reads (test/config.test.ts checks the list against what it reads). */
export const KNOWN_VARIABLES = [
  'PORT', 'HOST', 'DATA_DIR', 'MONGODB_URL', 'STORE_SYNC', 'ADMIN_TOKEN', 'CALLBACK_ALLOW_PRIVATE', 'LOG_LEVEL',
  'ACCESS_TOKEN_TTL', 'APP_TOKEN_TTL', 'SHARDS', 'DWELL_GRACE_MS', 'DWELL_TOLERANCE_MS', 'AUTH_CACHE_TTL_MS', 'WEBHOOK_SECRET_OVERLAP_S',
  'DELIVERY_RETENTION_DAYS', 'HISTORY_RETENTION_DAYS', 'RETENTION_SWEEP_S', 'CALLBACK_CONCURRENCY',
  'CALLBACK_ENDPOINT_CONCURRENCY', 'AUTH_ACCOUNT_FAILURES', 'AUTH_CLIENT_FAILURES', 'AUTH_ADDRESS_FAILURES',
  'AUTH_FAILURE_WINDOW_S', 'FCM_PROJECT_ID', 'FCM_SERVICE_ACCOUNT_FILE', 'APNS_KEY_FILE', 'APNS_KEY_ID',
  'APNS_TEAM_ID', 'APNS_TOPIC', 'PASSWORD_HASH_COST', 'INSPECTOR_TILE_URL', 'INSPECTOR_TILE_ATTRIBUTION', 'INSPECTOR_TILE_ATTRIBUTION_URL', 'TIMELINE', 'TIMELINE_RETENTION_DAYS', 'TIMELINE_MAX_PER_PAIR', 'SHARE_TOKEN_FAILURES',
  'METRICS_TOKEN', 'STREAM_AUTH_TIMEOUT_MS', 'STREAM_CONNECTIONS_PER_ADDRESS', 'PUBLIC_URL', 'REPLAY_THREADS', 'REPLAY_TIMEOUT_MS',
] as const;

/**
 * Words that start only this service's settings: a variable starting with one is meant for it.
 * Not LOG_ or HOST_, which other programs use too.
 */
const OUR_WORDS = [
  'CALLBACK', 'AUTH', 'DWELL', 'STORE', 'HISTORY', 'DELIVERY', 'RETENTION', 'WEBHOOK', 'FCM', 'APNS',
  'ACCESS_TOKEN', 'ADMIN', 'DATA', 'MONGO', 'MONGODB', 'PASSWORD', 'INSPECTOR', 'TIMELINE', 'SHARE_TOKEN', 'STREAM', 'REPLAY',
];

/** Kubernetes service links (`<SERVICE>_PORT_80_TCP`, `<SERVICE>_SERVICE_HOST`, …) for a service named like ours. */
const SERVICE_LINK = /_(SERVICE_HOST|SERVICE_PORT(_\w+)?|PORT(_\d+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?)?)$/;

/**
 * A message for each variable that is not read but looks meant for this service: it starts with one
 * of OUR_WORDS, or it is a near-miss of a known name (a letter or two off, or another case).
 */
export function unknownVariableWarnings(names: readonly string[]): string[] {
  const known: readonly string[] = KNOWN_VARIABLES;
  const warnings: string[] = [];
  for (const name of names) {
    if (known.includes(name) || SERVICE_LINK.test(name)) continue;
    const upper = name.toUpperCase();
    const ranked = known.map((k) => ({ k, d: editDistance(upper, k) })).sort((a, b) => a.d - b.d);
    const near = ranked.filter(({ k, d }) => d <= closeEnough(k) && d === ranked[0].d).map(({ k }) => k);
    const word = OUR_WORDS.find((w) => upper.startsWith(`${w}_`));
    if (near.length === 0 && word === undefined) continue;
    // Not close to one name: the settings with its first word.
    const candidates = near.length > 0 ? near : known.filter((k) => k.startsWith(word!) || k.includes(`_${word}_`));
    const hint = candidates.length === 0 ? '' : candidates.length === 1 ? `; did you mean ${candidates[0]}?` : `; did you mean one of ${candidates.join(', ')}?`;
    warnings.push(`unknown environment variable ${name} is ignored${hint}`);
  }
  return warnings;
}

/** How many edits away from a known name still reads as a slip: one for short names (HOME is not HOST). */
const closeEnough = (known: string) => (known.length <= 4 ? 1 : known.length <= 8 ? 2 : 3);

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** OWASP's scrypt cost (N = 2^17); lower it only where hashing time matters more than guessing cost. */
export const DEFAULT_PASSWORD_HASH_COST = 17;

/**
 * OpenStreetMap's standard tiles: free for light, interactive use such as a developer's page, with
 * this attribution (its tile usage policy); a busy deployment names its own tile server.
 */
export const DEFAULT_TILE_URL = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
const DEFAULT_TILE_ATTRIBUTION = { text: '© OpenStreetMap contributors', url: 'https://www.openstreetmap.org/copyright' };

/** The inspector's tiles: the default source, the operator's, or none (`off`). */
function inspectorTiles(env: NodeJS.ProcessEnv): Pick<Config, 'inspectorTileUrl' | 'inspectorTileAttribution'> {
  const raw = env.INSPECTOR_TILE_URL;
  if (raw === 'off') return {};
  const url = tileUrl(raw);
  const text = env.INSPECTOR_TILE_ATTRIBUTION;
  const link = env.INSPECTOR_TILE_ATTRIBUTION_URL;
  if (link !== undefined && link !== '' && !/^https?:\/\/\S+$/.test(link)) {
    throw new ConfigError(`INSPECTOR_TILE_ATTRIBUTION_URL must be an http(s) URL, got "${link}"`);
  }
  if (text !== undefined && text.length > 200) throw new ConfigError('INSPECTOR_TILE_ATTRIBUTION must be at most 200 characters');
  if (!url) return { inspectorTileUrl: DEFAULT_TILE_URL, inspectorTileAttribution: DEFAULT_TILE_ATTRIBUTION };
  return { inspectorTileUrl: url, inspectorTileAttribution: { text: text || 'Map tiles: configured source', ...(link ? { url: link } : {}) } };
}

/** An http(s) URL template naming {z}, {x} and {y}, or nothing. */
function tileUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^https?:\/\/\S+$/.test(raw) || !['{z}', '{x}', '{y}'].every((part) => raw.includes(part))) {
    throw new ConfigError(`INSPECTOR_TILE_URL must be an http(s) URL template with {z}, {x} and {y} (or "off"), got "${raw}"`);
  }
  return raw;
}

/** An absolute http(s) URL without credentials, query or fragment, as origin plus path without a trailing slash. */
function publicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const problem = `PUBLIC_URL must be the http(s) URL clients reach the service at, such as https://geo.example.com, without credentials, query or fragment; got "${raw}"`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(problem);
  }
  if (!/^https?:$/.test(url.protocol) || !url.hostname || url.username || url.password || url.search || url.hash || /[?#\s]/.test(raw)) {
    throw new ConfigError(problem);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** A phone's backlog after a short gap in coverage, or after a restart, arrives within this. */
export const DEFAULT_DWELL_GRACE_MS = 30_000;
/** A request in flight at the deadline still counts: a quiet dwell fires about a second after it. */
export const DEFAULT_DWELL_TOLERANCE_MS = 1_000;

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

/**
 * Replays are rare and heavy: one thread, two where the cores leave room beside the main thread
 * and a shard. More would take cores from the location updates.
 */
function defaultReplayThreads(): number {
  return Math.min(2, Math.max(1, availableParallelism() - 2));
}
