// `npm start` as an operator (or a process manager) runs it: it builds, serves the API from the
// compiled JavaScript with its worker threads (a callback trigger fires: the shard thread evaluates
// the point, the sender thread posts the callback; location/context's data is decoded in a thread
// of its own; a replay runs in its own), and a SIGTERM sent to npm stops the server, which closes its port, instead of
// leaving it running without its parent. Stopped the way a terminal's Ctrl-C and systemd stop it
// (the signal sent to the whole process group, so node gets it from there and again from npm), it
// drains and exits 0, leaving no LOCK, -wal or -shm in DATA_DIR.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT } from '../../load-tests/processes.js';
import { DATABASE_FILE } from '../../src/store/sqlite/engine.js';
import { until } from '../delivery/helpers.js';
import { Api } from '../helpers/api.js';
import { createAnonUser, createApp } from '../helpers/fixtures.js';
import { ADMIN_TOKEN } from '../helpers/server.js';

const CENTRE = { latitude: 45.5, longitude: -122.6 };
const north = (metres: number) => CENTRE.latitude + metres / 111_195;
const point = (at: number, lat: number) => ({ date: at, location: { position: { latitude: lat, longitude: CENTRE.longitude, horizontal_accuracy: 10 } } });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const answers = (port: number) => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false);

interface Started {
  npm: ChildProcess;
  serverPid: number;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
}

const started: Started[] = [];
const dirs: string[] = [];
let receiver: Server | undefined;

afterEach(async () => {
  // Whatever the outcome, leave nothing running.
  for (const { npm, serverPid } of started.splice(0)) {
    if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    if (alive(serverPid)) process.kill(serverPid, 'SIGKILL');
  }
});
afterAll(async () => {
  if (receiver) await new Promise((r) => receiver!.close(r));
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/**
 * `npm start` on a fresh DATA_DIR, until the server logs that it listens. `group`: in a process
 * group of its own (npm's pid is the group's id), as a terminal or systemd starts it.
 */
async function npmStart(dataDir: string, opts: { group?: boolean } = {}): Promise<Started> {
  const port = await freePort();
  const npm = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN,
      CALLBACK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.group ?? false,
  });
  let output = '';
  npm.stdout!.on('data', (c: Buffer) => (output += c));
  npm.stderr!.on('data', (c: Buffer) => (output += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => npm.once('exit', (code, signal) => r({ code, signal })));
  // The build (prestart, when the sources changed) comes first; then the server logs its pid as it listens.
  const serverPid = await until(() => {
    if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}:\n${output}`);
    const listening = output.split('\n').find((l) => l.includes('Server listening'));
    return listening ? (JSON.parse(listening) as { pid: number }).pid : undefined;
  }, 100_000, 100);
  const run = { npm, serverPid, port, exited, output: () => output };
  started.push(run);
  return run;
}

async function freshDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'npm-start-'));
  dirs.push(dir);
  return dir;
}

describe('npm start', () => {
  it('serves from dist/ with its worker threads and stops on a SIGTERM sent to npm', async () => {
    const received: string[] = [];
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        received.push(body);
        res.end('thanks');
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const { npm, serverPid, port, exited } = await npmStart(await freshDataDir());
    expect(await answers(port)).toBe(true);
    const { stdout: command } = await promisify(execFile)('ps', ['-o', 'args=', '-p', String(serverPid)]);
    expect(command).toContain('dist/src/server.js');
    expect(command).not.toContain('tsx');

    const api = new Api(`http://127.0.0.1:${port}`);
    const app = await createApp(api);
    const user = await createAnonUser(api, app);
    const trigger = await api.post('/1/trigger/create', { token: app.access_token, json: { type: 'callback', url: hook, ...CENTRE, radius: 100 } });
    expect(trigger.status).toBe(200);
    const t0 = Math.floor(Date.now() / 1000) - 60;
    const update = await api.post('/1/location/update', { token: user.access_token, json: [point(t0, north(400)), point(t0 + 30, north(10))] });
    expect(update.body).toEqual({ response: 'ok' });
    await until(() => received.length > 0, 10_000);
    expect(JSON.parse(received[0]!)).toMatchObject({ trigger: { trigger_id: trigger.body.trigger_id } });
    const context = await api.get('/1/location/context', { token: user.access_token, query: { latitude: 45.5231, longitude: -122.6765 } });
    expect(context.body).toMatchObject({ locality_name: 'Portland', region_name: 'OR' });
    // The replay thread starts from dist's replay-worker.js too.
    const replay = await api.post('/1/trigger/replay', { token: app.access_token, json: { user_id: user.user_id, points: [point(t0, north(400)), point(t0 + 30, north(10))] } });
    expect(replay.body.firings).toEqual([expect.objectContaining({ trigger_id: trigger.body.trigger_id, event: 'enter' })]);

    npm.kill('SIGTERM');
    await exited;
    await until(() => !alive(serverPid), 15_000);
    expect(await answers(port)).toBe(false);
  }, 150_000);

  for (const [signal, who] of [['SIGINT', 'Ctrl-C in a terminal'], ['SIGTERM', 'systemd']] as const) {
    it(`${who}: ${signal} to the whole process group drains, exits 0 and leaves no LOCK, -wal or -shm`, async () => {
      const dataDir = await freshDataDir();
      const run = await npmStart(dataDir, { group: true });
      // Writes, so that the WAL and its index exist.
      const api = new Api(`http://127.0.0.1:${run.port}`);
      const app = await createApp(api);
      const user = await createAnonUser(api, app);
      const update = await api.post('/1/location/update', { token: user.access_token, json: [point(Math.floor(Date.now() / 1000), north(10))] });
      expect(update.body).toEqual({ response: 'ok' });
      expect(await readdir(dataDir)).toEqual(expect.arrayContaining([DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, 'LOCK']));

      process.kill(-run.npm.pid!, signal);
      const { code } = await run.exited;
      await until(() => !alive(run.serverPid), 15_000);
      expect({ code, files: await readdir(dataDir) }).toEqual({ code: 0, files: [DATABASE_FILE] });
      expect(run.output()).not.toMatch(/second SIG|killed by timeout/);
      expect(run.output()).toContain('stopping: finishing the work in hand');
    }, 150_000);
  }
});
