// A first run from a fresh clone (issue "Docs a newcomer can read", item 3): the service as a child
// process, from its TypeScript sources, with a clean environment and one bad setting at a time.
// Each mistake ends in one line naming the variable and exit code 1, never a stack trace; a good
// start logs its effective settings and warns about a misspelt variable.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../src/store/sqlite/engine.js';

const ROOT = path.resolve(import.meta.dirname, '..');
/** An account that cannot write a directory root owns with mode 0555: root itself can. */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Each run compiles the sources through tsx, which takes seconds on a busy machine. */
const SLOW = { timeout: 60_000 };

/**
 * Runs the service with only `env` (and PATH, HOME) until it exits, or until `stopWhen` sees its
 * output, then stops it with SIGTERM. `uid`: run as another user (the unwritable DATA_DIR case).
 */
function runService(env: Record<string, string>, opts: { stopWhen?: (stdout: string) => boolean; uid?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: opts.uid === undefined ? (process.env.HOME ?? '') : tmpdir(), LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.uid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (opts.stopWhen?.(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // A bad setting ends the process within seconds; one that started would run on.
    const guard = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

let work: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'geotrigger-first-run-'));
  // Open to the other account, so what it cannot write is the read-only DATA_DIR alone.
  await chmod(work, 0o755);
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** Expects the run to have failed with exactly this one line and nothing else said. */
function expectOneLine(run: Run, line: string | RegExp) {
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(lines(run.stderr)).toHaveLength(1);
  if (typeof line === 'string') expect(run.stderr.trim()).toBe(line);
  else expect(run.stderr.trim()).toMatch(line);
}

describe('a first run with a bad setting', SLOW, () => {
  let blocker: Server | undefined;
  afterAll(async () => {
    if (blocker) await new Promise((r) => blocker!.close(r));
  });

  it('PORT in use: one line, exit 1, and the data directory is left unlocked', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const dataDir = path.join(work, 'port-in-use');
    const run = await runService({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir });
    expectOneLine(run, `cannot start: PORT ${port} is in use (set PORT to another port)`);
    // The store had been opened (its database is there), and was closed: no LOCK names a dead process.
    expect(existsSync(path.join(dataDir, DATABASE_FILE))).toBe(true);
    expect(await readdir(dataDir)).not.toContain('LOCK');
  });

  it('HOST that does not resolve: one line naming HOST, exit 1, no LOCK left', async () => {
    const dataDir = path.join(work, 'bad-host');
    const run = await runService({ PORT: '0', HOST: 'nohost.invalid', DATA_DIR: dataDir });
    // Without a resolver at hand the lookup fails as EAI_AGAIN rather than ENOTFOUND.
    expectOneLine(run, /^cannot start: HOST "nohost\.invalid" cannot be bound \((ENOTFOUND|EAI_AGAIN)\)$/);
    expect(await readdir(dataDir)).not.toContain('LOCK');
  });

  it('DATA_DIR that cannot be written: one line naming DATA_DIR, exit 1', async () => {
    const dataDir = path.join(work, 'read-only');
    await mkdir(dataDir);
    await chmod(dataDir, 0o555);
    const run = await runService({ PORT: '0', DATA_DIR: dataDir }, { uid: asRoot ? NOBODY : undefined });
    expectOneLine(run, `cannot start: DATA_DIR ${dataDir} is not writable (EACCES)`);
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('DATA_DIR under a file: one line naming DATA_DIR, exit 1', async () => {
    const file = path.join(work, 'a-file');
    await writeFile(file, 'not a directory');
    const run = await runService({ PORT: '0', DATA_DIR: path.join(file, 'data') });
    expectOneLine(run, `cannot start: DATA_DIR ${path.join(file, 'data')} is not a directory (ENOTDIR)`);
  });

  it('a misspelt variable is said before the line it may explain', async () => {
    const file = path.join(work, 'another-file');
    await writeFile(file, '');
    const run = await runService({ PORT: '0', DATA_DIR: file, DATADIR: path.join(work, 'meant') });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      'warning: unknown environment variable DATADIR is ignored; did you mean DATA_DIR?',
      `cannot start: DATA_DIR ${file} is not a directory (EEXIST)`,
    ]);
  });
});

describe('a first run that starts', SLOW, () => {
  it('logs its effective settings once, warns about a misspelt variable, and says the admin API is off', async () => {
    const dataDir = path.join(work, 'good');
    const secret = 'mongo-password-that-must-not-show';
    const run = await runService(
      // No ADMIN_TOKEN (the newcomer's first try), a misspelt retention variable, info logging.
      { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', DELIVERY_RETENTION: secret, SHARDS: '1' },
      { stopWhen: (out) => out.includes('"effective settings"') },
    );
    const logged = lines(run.stdout).map((l) => JSON.parse(l) as { level: number; msg: string; settings?: Record<string, unknown>; docs?: string; inspector?: string });
    const warnings = logged.filter((l) => l.level === 40);
    expect(warnings.map((l) => l.msg)).toEqual([
      'unknown environment variable DELIVERY_RETENTION is ignored; did you mean DELIVERY_RETENTION_DAYS?',
    ]);
    const settings = logged.filter((l) => l.msg === 'effective settings');
    expect(settings).toHaveLength(1);
    expect(settings[0].settings).toMatchObject({
      HOST: '127.0.0.1', store: 'embedded', DATA_DIR: dataDir, STORE_SYNC: 'normal', SHARDS: 1, DWELL_GRACE_MS: 30_000, DWELL_TOLERANCE_MS: 1_000,
      CALLBACK_CONCURRENCY: 192, DELIVERY_RETENTION_DAYS: 30, HISTORY_RETENTION_DAYS: 0, AUTH_ACCOUNT_FAILURES: 10,
      adminApi: 'disabled (set ADMIN_TOKEN to enable)',
    });
    // The port it listens on, when PORT=0 let the system choose.
    expect(settings[0].settings!.PORT).toEqual(expect.any(Number));
    expect(settings[0].settings!.PORT).not.toBe(0);
    // And where a newcomer finds the API's documentation and the inspector.
    const base = `http://127.0.0.1:${settings[0].settings!.PORT}`;
    expect(settings[0]).toMatchObject({ docs: `${base}/docs`, inspector: `${base}/inspector/` });
    // Values of variables, and so secrets, are never logged.
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).toBe('');
  });

  it('with ADMIN_TOKEN, the settings say the admin API is on and never show the token', async () => {
    const token = 'first-run-admin-token-0123456789';
    const run = await runService(
      { PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(work, 'admin'), LOG_LEVEL: 'info', ADMIN_TOKEN: token },
      { stopWhen: (out) => out.includes('"effective settings"') },
    );
    expect(run.stdout).toContain('"adminApi":"enabled"');
    expect(run.stdout).not.toContain(token);
  });
});
