// What server.ts says at start: the effective settings (one log line, no secrets), and for a start
// that fails on a setting, one line naming the variable to change instead of a stack trace.
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Config } from './config.js';
import { publicBaseUrl } from './http/public-url.js';
import { DataDirInUseError } from './store/data-dir-lock.js';
import { DATABASE_FILE, LegacyDataError } from './store/sqlite/engine.js';

/** The hosts and database of a MongoDB URL, without the credentials it may hold. */
export function mongodbTarget(url: string): string {
  const rest = url.replace(/^mongodb(\+srv)?:\/\//, '');
  const authority = rest.split(/[/?]/, 1)[0];
  const database = rest.slice(authority.length).split('?', 1)[0];
  return authority.slice(authority.lastIndexOf('@') + 1) + database;
}

/** The settings in force, named as the variables that set them. */
export function effectiveSettings(config: Config, address: AddressInfo | string | null) {
  return {
    PORT: typeof address === 'object' && address ? address.port : config.port,
    HOST: config.host,
    // The base of the links the service hands out: PUBLIC_URL, or what it falls back to.
    PUBLIC_URL: publicBaseUrl(config, address),
    store: config.mongodbUrl ? 'mongodb' : 'embedded',
    ...(config.mongodbUrl
      ? { MONGODB_URL: mongodbTarget(config.mongodbUrl) }
      : { DATA_DIR: config.dataDir, STORE_SYNC: config.storeSync }),
    SHARDS: config.shards,
    DWELL_GRACE_MS: config.dwellGraceMs,
    DWELL_TOLERANCE_MS: config.dwellToleranceMs,
    CALLBACK_CONCURRENCY: config.callbackConcurrency,
    CALLBACK_ENDPOINT_CONCURRENCY: config.callbackEndpointConcurrency,
    CALLBACK_ALLOW_PRIVATE: config.callbackAllowPrivate,
    ACCESS_TOKEN_TTL: config.accessTokenTtl,
    APP_TOKEN_TTL: config.appTokenTtl,
    DELIVERY_RETENTION_DAYS: config.deliveryRetentionDays,
    HISTORY_RETENTION_DAYS: config.historyRetentionDays,
    AUTH_ACCOUNT_FAILURES: config.authAccountFailures,
    AUTH_CLIENT_FAILURES: config.authClientFailures,
    AUTH_ADDRESS_FAILURES: config.authAddressFailures,
    AUTH_FAILURE_WINDOW_S: config.authFailureWindowS,
    STREAM_AUTH_TIMEOUT_MS: config.streamAuthTimeoutMs,
    STREAM_CONNECTIONS_PER_ADDRESS: config.streamConnectionsPerAddress,
    adminApi: config.adminToken ? 'enabled' : 'disabled (set ADMIN_TOKEN to enable)',
    push: Object.entries(config.push ?? {}).filter(([, on]) => on).map(([name]) => name),
  };
}

/**
 * Where a person finds the service once it listens: the API, its documentation (/docs) and the web
 * inspector (/inspector/). An address that means "every interface" is shown as localhost.
 */
export function whereToFind(address: AddressInfo | string | null, config: Config): { api: string; docs: string; inspector: string } {
  const bound = typeof address === 'object' && address ? address : { address: config.host, port: config.port };
  const host = bound.address === '0.0.0.0' || bound.address === '::' ? 'localhost' : bound.address.includes(':') ? `[${bound.address}]` : bound.address;
  const base = `http://${host}:${bound.port}`;
  return { api: `${base}/1/`, docs: `${base}/docs`, inspector: `${base}/inspector/` };
}

type SystemError = Error & { code?: string; path?: string; syscall?: string };

/** p is dir, inside it, or one of its parents (a recursive mkdir fails on the first it cannot make). */
const related = (dir: string, p: string) => !path.relative(dir, p).startsWith('..') || !path.relative(p, dir).startsWith('..');

/** Opening the store under DATA_DIR failed: undefined when the error is not about it. */
function dataDirProblem(config: Config, err: SystemError): string | undefined {
  if (config.mongodbUrl) return undefined;
  const dir = `DATA_DIR ${config.dataDir}`;
  if (err.name === 'SqliteError') {
    const what = err.code === 'SQLITE_READONLY' ? 'is not writable' : 'cannot be opened';
    return `${dir}: the database ${DATABASE_FILE} ${what} (${err.code}: ${err.message})`;
  }
  if (!err.code || !err.path || !related(config.dataDir, err.path)) return undefined;
  switch (err.code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `${dir} is not writable (${err.code})`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `${dir} is not a directory (${err.code})`;
    case 'ENOSPC':
      return `${dir} has no space left (${err.code})`;
    default:
      return `${dir} cannot be used (${err.code}: ${err.message})`;
  }
}

/** Building the app (opening the store) failed: the line to print, or undefined for an unexpected error. */
export function buildFailure(config: Config, err: unknown): string | undefined {
  if (err instanceof DataDirInUseError || err instanceof LegacyDataError) return err.message;
  return err instanceof Error ? dataDirProblem(config, err) : undefined;
}

/** Listening failed: the line to print, or undefined for an unexpected error. */
export function listenFailure(config: Config, err: unknown): string | undefined {
  const code = (err as SystemError | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return `PORT ${config.port} is in use (set PORT to another port)`;
    case 'EACCES':
      return `PORT ${config.port} needs privileges this process does not have (EACCES; use a port above 1023)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EADDRNOTAVAIL':
    case 'EAFNOSUPPORT':
    case 'EINVAL':
      return `HOST "${config.host}" cannot be bound (${code}${code === 'EADDRNOTAVAIL' ? ': not an address of this machine' : ''})`;
    default:
      return undefined;
  }
}
