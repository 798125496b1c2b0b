// What the service says at start (src/startup.ts): the settings line keeps credentials out, and a
// failure is put in one line only when it is about a setting; anything else keeps its stack trace.
// The child-process runs of each case are in first-run.e2e.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { buildFailure, effectiveSettings, listenFailure, mongodbTarget, whereToFind } from '../src/startup.js';
import { DATABASE_FILE } from '../src/store/sqlite/engine.js';
import { openStore } from '../src/store/store.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'geotrigger-startup-'));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('effective settings', () => {
  it.each([
    ['mongodb://user:pa55word@db.example.net:27017/geo?authSource=admin', 'db.example.net:27017/geo'],
    ['mongodb+srv://user:p%40ss@cluster0.example.net/geo', 'cluster0.example.net/geo'],
    ['mongodb://a:1@h1:27017,h2:27017/geo', 'h1:27017,h2:27017/geo'],
    ['mongodb://localhost:27017', 'localhost:27017'],
  ])('shows where %s points without its credentials', (url, shown) => {
    expect(mongodbTarget(url)).toBe(shown);
    const settings = effectiveSettings(loadConfig({ MONGODB_URL: url }), null);
    expect(settings).toMatchObject({ store: 'mongodb', MONGODB_URL: shown });
    expect(JSON.stringify(settings)).not.toMatch(/pa55word|p%40ss|user:/);
  });

  it('names the push providers that are on, never their key files or ids', () => {
    const config = loadConfig({ FCM_PROJECT_ID: 'my-project', FCM_SERVICE_ACCOUNT_FILE: '/secrets/sa.json', ADMIN_TOKEN: 'x'.repeat(20) });
    const settings = effectiveSettings(config, { address: '127.0.0.1', family: 'IPv4', port: 4321 });
    expect(settings).toMatchObject({ PORT: 4321, push: ['fcm'], adminApi: 'enabled' });
    expect(JSON.stringify(settings)).not.toMatch(/sa\.json|my-project|xxxxxxxx/);
  });
});

describe('where to find it', () => {
  const config = loadConfig({});
  it.each([
    [{ address: '127.0.0.1', family: 'IPv4', port: 3000 }, 'http://127.0.0.1:3000'],
    [{ address: '0.0.0.0', family: 'IPv4', port: 8080 }, 'http://localhost:8080'],
    [{ address: '::', family: 'IPv6', port: 8080 }, 'http://localhost:8080'],
    [{ address: '::1', family: 'IPv6', port: 3001 }, 'http://[::1]:3001'],
  ])('listening on %o: the API, /docs and /inspector/ under %s', (address, base) => {
    expect(whereToFind(address, config)).toEqual({ api: `${base}/1/`, docs: `${base}/docs`, inspector: `${base}/inspector/` });
  });
});

describe('start failures', () => {
  const config = (dataDir: string) => loadConfig({ DATA_DIR: dataDir, PORT: '8080', HOST: 'example.invalid' });

  it('a DATA_DIR whose database file is not SQLite: one line naming DATA_DIR and the file', async () => {
    const dataDir = path.join(work, 'not-a-database');
    await rm(dataDir, { recursive: true, force: true });
    await openStore({ kind: 'embedded', dataDir }).then((s) => s.close());
    await writeFile(path.join(dataDir, DATABASE_FILE), 'this is not a database, just some text that is long enough'.repeat(100));
    const err = await openStore({ kind: 'embedded', dataDir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(buildFailure(config(dataDir), err)).toBe(
      `DATA_DIR ${dataDir}: the database ${DATABASE_FILE} cannot be opened (SQLITE_NOTADB: file is not a database)`,
    );
  });

  it('leaves errors that are not about a setting alone (undefined: the stack trace is printed)', () => {
    const dataDir = path.join(work, 'elsewhere');
    const other = Object.assign(new Error('EACCES: permission denied, open /etc/shadow'), { code: 'EACCES', path: '/etc/shadow' });
    expect(buildFailure(config(dataDir), other)).toBeUndefined();
    expect(buildFailure(config(dataDir), new TypeError('x is not a function'))).toBeUndefined();
    expect(listenFailure(config(dataDir), new Error('boom'))).toBeUndefined();
    // With MongoDB, DATA_DIR is not used: a file error is not blamed on it.
    const mongo = loadConfig({ DATA_DIR: dataDir, MONGODB_URL: 'mongodb://db/geo' });
    expect(buildFailure(mongo, Object.assign(new Error('denied'), { code: 'EACCES', path: dataDir }))).toBeUndefined();
  });

  it('a port below 1024 without the privilege names PORT', () => {
    const err = Object.assign(new Error('listen EACCES: permission denied 127.0.0.1:80'), { code: 'EACCES', syscall: 'listen' });
    expect(listenFailure(loadConfig({ PORT: '80' }), err)).toBe('PORT 80 needs privileges this process does not have (EACCES; use a port above 1023)');
  });
});
