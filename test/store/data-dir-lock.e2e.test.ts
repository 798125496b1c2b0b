// One process per DATA_DIR: a second service on the same directory refuses to start (two would
// overwrite each other's writes), while a lock left by a killed process does not keep the
// directory from being used again.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../load-tests/processes.js';
import { openSqliteEngine } from '../../src/store/sqlite/engine.js';
import { DataDirInUseError } from '../../src/store/data-dir-lock.js';
import { Api } from '../helpers/api.js';
import { createApp } from '../helpers/fixtures.js';
import { killService, spawnService, startService } from '../helpers/service-process.js';

const openEmbeddedEngine = async (dir: string, names: string[]) => openSqliteEngine(dir, names);
const dirs: string[] = [];
const children: ChildProcess[] = [];
const tempDir = async () => {
  const d = await mkdtemp(path.join(tmpdir(), 'lock-'));
  dirs.push(d);
  return d;
};
const lockOf = (dir: string, pid: number, host = hostname()) =>
  writeFile(path.join(dir, 'LOCK'), JSON.stringify({ pid, host, since: '2026-11-21T00:00:00.000Z' }));

/** A process that is surely alive while the test runs. */
function sleeper(): ChildProcess {
  const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  children.push(c);
  return c;
}

afterAll(async () => {
  for (const c of children) await killService(c);
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('the data directory lock', () => {
  it('is taken at open and given back at close', async () => {
    const dir = await tempDir();
    const engine = await openEmbeddedEngine(dir, ['things']);
    expect(JSON.parse(await readFile(path.join(dir, 'LOCK'), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    await engine.close();
    expect(existsSync(path.join(dir, 'LOCK'))).toBe(false);
  });

  it('refuses a directory held by another live process, and takes one whose owner is gone', async () => {
    const dir = await tempDir();
    const owner = sleeper();
    await lockOf(dir, owner.pid!);
    const refused = openEmbeddedEngine(dir, ['things']);
    await expect(refused).rejects.toBeInstanceOf(DataDirInUseError);
    await expect(refused).rejects.toThrow(`in use by process ${owner.pid}`);
    // The refused open changed nothing: the owner's lock is still there.
    expect(JSON.parse(await readFile(path.join(dir, 'LOCK'), 'utf8')).pid).toBe(owner.pid);

    await killService(owner);
    const engine = await openEmbeddedEngine(dir, ['things']);
    expect(JSON.parse(await readFile(path.join(dir, 'LOCK'), 'utf8')).pid).toBe(process.pid);
    await engine.close();
  });

  it('refuses a lock written on another host (its process cannot be checked from here)', async () => {
    const dir = await tempDir();
    await lockOf(dir, process.pid + 1, 'elsewhere.example');
    await expect(openEmbeddedEngine(dir, ['things'])).rejects.toThrow('on host elsewhere.example');
  });

  it('takes over an unreadable lock (an owner killed while writing it)', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'LOCK'), '{"pid":');
    const engine = await openEmbeddedEngine(dir, ['things']);
    await engine.close();
  });

  it('a second service on the same DATA_DIR exits with the reason; the first keeps serving, and a kill frees the directory', { timeout: 90_000 }, async () => {
    const dir = await tempDir();
    const port = await freePort();
    const first = await startService(dir, port);
    children.push(first);
    const api = new Api(`http://127.0.0.1:${port}`);
    const app = await createApp(api);

    const second = spawnService(dir, await freePort(), 'pipe');
    children.push(second);
    let stderr = '';
    second.stderr!.on('data', (b) => (stderr += String(b)));
    const [code] = await once(second, 'exit');
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot start: ${dir} is in use by process ${first.pid}`);

    const token = await api.post('/1/oauth/token', { form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret } });
    expect(token.status).toBe(200);

    await killService(first);
    const again = await startService(dir, port);
    children.push(again);
    expect((await api.post('/1/oauth/token', { form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret } })).status).toBe(200);
  });
});
