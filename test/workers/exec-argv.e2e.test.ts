// Worker threads take the parent's loaders and profilers but not its V8 options, which Node refuses
// in a worker's execArgv: an operator starting the service with `node --trace-gc` (or any V8 flag)
// must get a running service, not a crash when the first shard starts.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../load-tests/processes.js';
import { workerExecArgv } from '../../workers/exec-argv.js';
import { killService, startService } from '../helpers/service-process.js';

const PARENT = [
  '--max-semi-space-size=64', '--trace-gc', '--single-threaded-gc', '--stack-trace-limit=50',
  '--import', 'tsx', '--cpu-prof', '--cpu-prof-dir', '/tmp/profiles', '--conditions=development',
  '-e', 'console.log(1)', '--enable-source-maps',
];

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const c of children) await killService(c);
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('worker execArgv', () => {
  it('keeps loaders, conditions and profilers with their values, and drops V8 options and --eval', () => {
    expect(workerExecArgv(PARENT)).toEqual([
      '--import', 'tsx', '--cpu-prof', '--cpu-prof-dir', '/tmp/profiles', '--conditions=development', '--enable-source-maps',
    ]);
  });

  it('adds the tsx loader when the parent has none', () => {
    const args = workerExecArgv(['--trace-gc']);
    expect(args[0]).toBe('--import');
    expect(args[1]).toMatch(/tsx/);
    expect(args).toHaveLength(2);
  });

  it('adds no loader when the service runs compiled (dist/), keeping one the parent has', () => {
    expect(workerExecArgv(['--trace-gc', '--enable-source-maps'], false)).toEqual(['--enable-source-maps']);
    expect(workerExecArgv(['--import', 'tsx'], false)).toEqual(['--import', 'tsx']);
  });

  it('gives argv a real worker thread accepts', async () => {
    const withoutProfiler = PARENT.filter((a, i) => !a.startsWith('--cpu-prof') && PARENT[i - 1] !== '--cpu-prof-dir');
    const w = new Worker('require("node:worker_threads").parentPort.postMessage("up")', { eval: true, execArgv: workerExecArgv(withoutProfiler) });
    const message = await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await w.terminate();
    expect(message).toBe('up');
  });

  it('lets the service start with V8 flags on its command line', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'v8flags-'));
    dirs.push(dir);
    const port = await freePort();
    const child = await startService(dir, port, ['--max-semi-space-size=32', '--trace-gc', '--single-threaded-gc']);
    children.push(child);
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);
  }, 40_000);
});
