// The service as a child process, from its TypeScript sources (`node --import tsx src/server.ts`, so
// no build is needed): for tests of what only a whole process shows (a kill, a second process on the
// same DATA_DIR). test/build/npm-start.e2e.test.ts runs the compiled service as `npm start` does.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ADMIN_TOKEN } from './server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Spawns the service on DATA_DIR and port, resolving once /health answers. */
export async function startService(dataDir: string, port: number, nodeArgs: string[] = []): Promise<ChildProcess> {
  const child = spawnService(dataDir, port, 'ignore', nodeArgs);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) return child;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the service did not start');
}

export function spawnService(dataDir: string, port: number, stdio: 'ignore' | 'pipe', nodeArgs: string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'warn' },
    stdio,
  });
}

/** SIGKILL, resolved once the process is gone (reaped: its pid no longer answers). */
export const killService = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
