// Configuration: defaults, and invalid values refused with a message naming the variable
// (loadConfig). test/build/config-errors.e2e.test.ts checks a real `npm start` stops on them.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, KNOWN_VARIABLES, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000, host: '127.0.0.1', dataDir: path.resolve('./data'), callbackAllowPrivate: false, logLevel: 'info',
      accessTokenTtl: 3600, appTokenTtl: 0, deliveryRetentionDays: 30, historyRetentionDays: 0, retentionSweepS: 600,
      callbackConcurrency: 192, callbackEndpointConcurrency: 96, dwellGraceMs: 30_000, dwellToleranceMs: 1_000,
      timeline: true, timelineRetentionDays: 30, timelineMaxPerPair: 200,
    });
    // One shard per core beside the main thread, at least one, at most eight.
    expect(c.shards).toBe(Math.min(8, Math.max(1, availableParallelism() - 1)));
    expect(c.mongodbUrl).toBeUndefined();
    expect(c.adminToken).toBeUndefined();
  });

  it('reads every documented variable', () => {
    const c = loadConfig({
      PORT: '8080', HOST: '0.0.0.0', DATA_DIR: '/tmp/somewhere', MONGODB_URL: 'mongodb://db:27017/geo', ADMIN_TOKEN: 'a'.repeat(16),
      CALLBACK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn', ACCESS_TOKEN_TTL: '0', APP_TOKEN_TTL: '7200', SHARDS: '4',
      DELIVERY_RETENTION_DAYS: '7', HISTORY_RETENTION_DAYS: '365', RETENTION_SWEEP_S: '60',
      CALLBACK_CONCURRENCY: '500', CALLBACK_ENDPOINT_CONCURRENCY: '20', DWELL_GRACE_MS: '5000', DWELL_TOLERANCE_MS: '0',
      INSPECTOR_TILE_URL: 'https://tiles.example.org/{z}/{x}/{y}.png',
      TIMELINE: 'false', TIMELINE_RETENTION_DAYS: '7', TIMELINE_MAX_PER_PAIR: '50',
    });
    expect(c).toMatchObject({
      port: 8080, host: '0.0.0.0', dataDir: '/tmp/somewhere', mongodbUrl: 'mongodb://db:27017/geo', adminToken: 'a'.repeat(16),
      callbackAllowPrivate: true, logLevel: 'warn', accessTokenTtl: 0, appTokenTtl: 7200, shards: 4,
      deliveryRetentionDays: 7, historyRetentionDays: 365, retentionSweepS: 60,
      callbackConcurrency: 500, callbackEndpointConcurrency: 20, dwellGraceMs: 5000, dwellToleranceMs: 0,
      inspectorTileUrl: 'https://tiles.example.org/{z}/{x}/{y}.png',
      timeline: false, timelineRetentionDays: 7, timelineMaxPerPair: 50,
    });
    // One receiver's share follows the total unless given.
    expect(loadConfig({ CALLBACK_CONCURRENCY: '9' })).toMatchObject({ callbackConcurrency: 9, callbackEndpointConcurrency: 4 });
    expect(loadConfig({ CALLBACK_CONCURRENCY: '1' })).toMatchObject({ callbackConcurrency: 1, callbackEndpointConcurrency: 1 });
    expect(loadConfig({ MONGODB_URL: 'mongodb+srv://user:pw@cluster.example.net/geo' }).mongodbUrl).toContain('mongodb+srv://');
    expect(loadConfig({ CALLBACK_ALLOW_PRIVATE: 'false' }).callbackAllowPrivate).toBe(false);
  });

  it("draws OpenStreetMap's tiles under the inspector's maps unless told another source or off", () => {
    expect(loadConfig({})).toMatchObject({
      inspectorTileUrl: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
      inspectorTileAttribution: { text: '© OpenStreetMap contributors', url: 'https://www.openstreetmap.org/copyright' },
    });
    const own = loadConfig({ INSPECTOR_TILE_URL: 'https://tiles.example.org/{z}/{x}/{y}.png', INSPECTOR_TILE_ATTRIBUTION: 'Tiles © Example' });
    expect(own.inspectorTileUrl).toBe('https://tiles.example.org/{z}/{x}/{y}.png');
    expect(own.inspectorTileAttribution).toEqual({ text: 'Tiles © Example' });
    const off = loadConfig({ INSPECTOR_TILE_URL: 'off' });
    expect(off.inspectorTileUrl).toBeUndefined();
    expect(off.inspectorTileAttribution).toBeUndefined();
  });

  const invalid: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be between 0 and 65535/],
    [{ PORT: '-1' }, /PORT/],
    [{ DWELL_GRACE_MS: '30s' }, /DWELL_GRACE_MS must be a whole number/],
    [{ DWELL_GRACE_MS: '3600001' }, /DWELL_GRACE_MS must be between 0 and 3600000/],
    [{ DWELL_TOLERANCE_MS: '-1' }, /DWELL_TOLERANCE_MS must be/],
    [{ PORT: '80.5' }, /PORT/],
    [{ SHARDS: '0' }, /SHARDS must be between 1 and 64/],
    [{ SHARDS: 'many' }, /SHARDS must be a whole number/],
    [{ SHARDS: '65' }, /SHARDS/],
    [{ MONGODB_URL: 'http://localhost:27017/geo' }, /MONGODB_URL must start with mongodb:\/\//],
    [{ MONGODB_URL: 'localhost' }, /MONGODB_URL/],
    [{ CALLBACK_ALLOW_PRIVATE: 'yes' }, /CALLBACK_ALLOW_PRIVATE must be "true" or "false"/],
    [{ CALLBACK_ALLOW_PRIVATE: 'TRUE ' }, /CALLBACK_ALLOW_PRIVATE/],
    [{ ADMIN_TOKEN: 'short' }, /ADMIN_TOKEN must be at least 16 characters/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ ACCESS_TOKEN_TTL: 'forever' }, /ACCESS_TOKEN_TTL/],
    [{ HOST: 'two words' }, /HOST/],
    [{ DELIVERY_RETENTION_DAYS: '3651' }, /DELIVERY_RETENTION_DAYS must be between 0 and 3650/],
    [{ DELIVERY_RETENTION_DAYS: '-1' }, /DELIVERY_RETENTION_DAYS/],
    [{ HISTORY_RETENTION_DAYS: 'a year' }, /HISTORY_RETENTION_DAYS must be a whole number/],
    [{ RETENTION_SWEEP_S: '0' }, /RETENTION_SWEEP_S must be between 1 and 86400/],
    [{ CALLBACK_CONCURRENCY: '0' }, /CALLBACK_CONCURRENCY must be between 1 and 4096/],
    [{ CALLBACK_ENDPOINT_CONCURRENCY: 'half' }, /CALLBACK_ENDPOINT_CONCURRENCY must be a whole number/],
    [{ CALLBACK_CONCURRENCY: '10', CALLBACK_ENDPOINT_CONCURRENCY: '11' }, /CALLBACK_ENDPOINT_CONCURRENCY \(11\) must not exceed CALLBACK_CONCURRENCY \(10\)/],
    [{ INSPECTOR_TILE_URL: 'https://tiles.example.org/tile.png' }, /INSPECTOR_TILE_URL must be an http\(s\) URL template with \{z\}/],
    [{ INSPECTOR_TILE_URL: 'file:///tiles/{z}/{x}/{y}.png' }, /INSPECTOR_TILE_URL/],
    [{ INSPECTOR_TILE_ATTRIBUTION_URL: 'javascript:alert(1)' }, /INSPECTOR_TILE_ATTRIBUTION_URL must be an http\(s\) URL/],
  ];
  it.each(invalid)('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('unknown variables', () => {
  const warn = (env: Record<string, string>) => loadConfig(env).warnings;

  it('lists exactly the variables loadConfig reads, so none of them is ever called unknown', () => {
    const read = new Set<string>();
    const env = new Proxy({} as NodeJS.ProcessEnv, {
      get: (_t, key) => (typeof key === 'string' && read.add(key), undefined),
    });
    loadConfig(env);
    expect([...read].sort()).toEqual([...KNOWN_VARIABLES].sort());
    expect(warn(Object.fromEntries(KNOWN_VARIABLES.map((k) => [k, '']))).length).toBe(0);
  });

  it.each([
    ['DATADIR', 'DATA_DIR'],
    ['DATA_DIRECTORY', 'DATA_DIR'],
    ['data_dir', 'DATA_DIR'],
    ['MONGO_URL', 'MONGODB_URL'],
    ['MONGODB_URI', 'MONGODB_URL'],
    ['ADMIN_KEY', 'ADMIN_TOKEN'],
    ['PROT', 'PORT'],
    ['LOGLEVEL', 'LOG_LEVEL'],
    ['SHARD', 'SHARDS'],
    ['DWELL_GRACE', 'DWELL_GRACE_MS'],
    ['STORE_SYNCH', 'STORE_SYNC'],
    ['CALLBACKS_CONCURRENCY', 'CALLBACK_CONCURRENCY'],
    ['HISTORY_RETENTION', 'HISTORY_RETENTION_DAYS'],
  ])('%s: one warning naming it and the likely intended %s, never its value', (name, meant) => {
    const warnings = warn({ [name]: 'secret-value-0123456789' });
    expect(warnings).toEqual([`unknown environment variable ${name} is ignored; did you mean ${meant}?`]);
  });

  it('an unknown variable with one of the service\'s words but no close name lists that word\'s settings', () => {
    expect(warn({ CALLBACK_TIMEOUT: '5' })).toEqual([
      'unknown environment variable CALLBACK_TIMEOUT is ignored; did you mean one of CALLBACK_ALLOW_PRIVATE, CALLBACK_CONCURRENCY, CALLBACK_ENDPOINT_CONCURRENCY?',
    ]);
    expect(warn({ RETENTION_DAYS: '5' })[0]).toMatch(/did you mean one of DELIVERY_RETENTION_DAYS, HISTORY_RETENTION_DAYS, RETENTION_SWEEP_S, TIMELINE_RETENTION_DAYS\?$/);
  });

  it('one line for each, and the settings still load', () => {
    const c = loadConfig({ PORT: '4000', DATADIR: '/x', APNS_KEY: 'k', AUTH_WINDOW_S: '9' });
    expect(c.port).toBe(4000);
    expect(c.warnings.map((w) => w.split(' ')[3])).toEqual(['DATADIR', 'APNS_KEY', 'AUTH_WINDOW_S']);
  });

  it('leaves other programs\' variables alone', () => {
    const common = [
      'HOME', 'HOSTNAME', 'HOSTTYPE', 'OSTYPE', 'TMPDIR', 'XDG_DATA_DIRS', 'LOGNAME', 'SHELL', 'SHLVL', 'NODE_ENV', 'NODE_OPTIONS',
      'TERM', 'USER', 'PWD', 'OLDPWD', 'LANG', 'LC_ALL', 'TZ', 'PATH', 'CI', 'INIT_CWD', 'HISTSIZE', 'HISTFILE', 'SSH_AUTH_SOCK',
      'npm_config_cache', 'npm_package_name', 'DATABASE_URL', 'LOG_FORMAT',
      // Kubernetes service links for a service named "auth" or "store".
      'AUTH_SERVICE_HOST', 'AUTH_SERVICE_PORT', 'AUTH_PORT', 'STORE_PORT_80_TCP_ADDR', 'STORE_PORT_80_TCP',
    ];
    expect(warn(Object.fromEntries(common.map((k) => [k, 'x'])))).toEqual([]);
  });
});
