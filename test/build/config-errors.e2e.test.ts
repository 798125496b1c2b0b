// Invalid configuration stops a real `npm start` with a message naming the variable and a
// non-zero exit (test/config.test.ts covers every rule in loadConfig).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Exit {
  code: number | null;
  output: string;
}

/** `npm start` with a clean environment; resolves when it exits (or kills it after a while). */
function npmStart(env: Record<string, string>, dataDir: string): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['start'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    // A configuration error exits within a second or two; a server that started would run on.
    const guard = setTimeout(() => child.kill('SIGTERM'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, output });
    });
  });
}

describe('npm start with bad configuration', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT must be a whole number'],
    [{ SHARDS: '0' }, 'SHARDS must be between 1 and 64'],
    [{ MONGODB_URL: 'postgres://db/geo' }, 'MONGODB_URL must start with mongodb://'],
    [{ CALLBACK_ALLOW_PRIVATE: 'sometimes' }, 'CALLBACK_ALLOW_PRIVATE must be "true" or "false"'],
    [{ ADMIN_TOKEN: 'tiny' }, 'ADMIN_TOKEN must be at least 16 characters'],
  ])('%j exits non-zero with the message', async (env, message) => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'geotrigger-config-'));
    try {
      const res = await npmStart(env, dataDir);
      expect(res.code).not.toBe(0);
      expect(res.code).not.toBeNull();
      expect(res.output).toContain(`configuration error: ${message}`);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
