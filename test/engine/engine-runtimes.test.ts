// The worker threads load TypeScript both under vitest (the other engine tests) and under tsx.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('Engine worker threads under tsx', () => {
  it('starts, evaluates and closes when the process was started with tsx', async () => {
    const cli = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));
    const script = fileURLToPath(new URL('./fixtures/engine-under-tsx.ts', import.meta.url));
    const { stdout } = await run(process.execPath, [cli, script], { timeout: 60_000 });
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(out.fires).toBe(4);
    expect(out.shards.reduce((a: number, b: number) => a + b, 0)).toBe(4);
  });
});
