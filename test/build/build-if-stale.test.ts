// `npm start` builds only when the sources changed (scripts/build.mjs --if-stale): the script runs
// in a scratch checkout whose tsc and vite are stand-ins that record being run and write the files
// a real build writes.
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../load-tests/processes.js';

let root: string;

const STAND_IN = (name: string, output: string) => `#!/bin/sh
echo ${name} >> "$(dirname "$0")/../../calls.log"
mkdir -p "$(dirname "${output}")" && echo built > "${output}"
`;

function write(rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
}

async function start(...args: string[]): Promise<{ built: string[]; stdout: string }> {
  rmSync(path.join(root, 'calls.log'), { force: true });
  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/build.mjs', ...args], { cwd: root });
  let built: string[] = [];
  try {
    built = readFileSync(path.join(root, 'calls.log'), 'utf8').trim().split('\n');
  } catch {
    // No tool ran.
  }
  return { built, stdout };
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'gt-build-'));
  mkdirSync(path.join(root, 'scripts'));
  copyFileSync(path.join(REPO_ROOT, 'scripts', 'build.mjs'), path.join(root, 'scripts', 'build.mjs'));
  write('node_modules/.bin/tsc', STAND_IN('tsc', 'dist/src/server.js'));
  write('node_modules/.bin/vite', STAND_IN('vite', 'dist/inspector/index.html'));
  chmodSync(path.join(root, 'node_modules/.bin/tsc'), 0o755);
  chmodSync(path.join(root, 'node_modules/.bin/vite'), 0o755);
  write('package.json', '{}');
  write('src/server.ts', 'export {};\n');
  write('inspector/index.html', '<!doctype html>\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('npm start: build only when stale', () => {
  it('builds a checkout never built, then starts without building while nothing changed', async () => {
    expect((await start('--if-stale')).built).toEqual(['tsc', 'vite']);
    // Nothing said either: `npm run --silent admin` prints only its answer.
    expect(await start('--if-stale')).toEqual({ built: [], stdout: '' });
  });

  it('builds again after a source file changed, was added or was removed', async () => {
    await start('--if-stale');
    const later = new Date(Date.now() + 5_000);
    write('src/server.ts', 'export const x = 1;\n');
    utimesSync(path.join(root, 'src/server.ts'), later, later);
    expect((await start('--if-stale')).built).toEqual(['tsc', 'vite']);

    write('inspector/src/new.ts', 'export {};\n');
    expect((await start('--if-stale')).built).toEqual(['tsc', 'vite']);

    rmSync(path.join(root, 'inspector/src/new.ts'));
    expect((await start('--if-stale')).built).toEqual(['tsc', 'vite']);
    expect((await start('--if-stale')).built).toEqual([]);
  });

  it('builds again when an output is missing, and always on npm run build', async () => {
    await start('--if-stale');
    rmSync(path.join(root, 'dist/inspector'), { recursive: true });
    expect((await start('--if-stale')).built).toEqual(['tsc', 'vite']);
    expect((await start()).built).toEqual(['tsc', 'vite']);
  });
});
