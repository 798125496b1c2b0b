// The tutorial (docs/tutorial.md), run as a newcomer who saves it to a file runs it: with bash,
// against a service started as the quick start says (its admin token, private callbacks allowed),
// twice in a row. Only the two ports change (the service's and the receiver's), to free ones.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT } from '../load-tests/processes.js';
import { startServer, type TestServer } from './helpers/server.js';

const README = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const TUTORIAL = readFileSync(path.join(REPO_ROOT, 'docs', 'tutorial.md'), 'utf8');
const QUICK_START_TOKEN = /ADMIN_TOKEN=(\S+) CALLBACK_ALLOW_PRIVATE=true npm start/.exec(README)![1]!;

/** The tutorial's script: the first sh block after its heading. */
function tutorial(): string {
  return /```sh\n([\s\S]*?)```/.exec(TUTORIAL)![1]!;
}

function runScript(script: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const bash = spawn('bash', ['-s'], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    bash.stdout.on('data', (c: Buffer) => (output += c));
    bash.stderr.on('data', (c: Buffer) => (output += c));
    bash.on('error', reject);
    bash.on('exit', (code) => resolve({ code, output }));
    bash.stdin.end(script);
  });
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { ADMIN_TOKEN: QUICK_START_TOKEN, CALLBACK_ALLOW_PRIVATE: 'true' } });
});
afterAll(() => server?.close());

describe('the tutorial', () => {
  it('runs as a script, gets its callback with a valid signature, and runs again the same way', async () => {
    const receiverPort = await freePort();
    const script = tutorial().replaceAll('http://127.0.0.1:3000', server.url).replaceAll('4000', String(receiverPort));
    expect(script).toContain(`listen(${receiverPort}`);

    for (const run of [1, 2]) {
      const { code, output } = await runScript(script);
      expect(code, output).toBe(0);
      expect(output, `run ${run}`).toContain('signature: valid');
      expect(output, `run ${run}`).not.toMatch(/INVALID|no valid callback/);
      // The last line is trigger/history: the one firing of this run's application.
      const history = JSON.parse(output.trim().split('\n').at(-1)!) as { history: Array<{ trigger: { type: string } }> };
      expect(history.history.map((h) => h.trigger.type)).toEqual(['callback']);
    }
  }, 120_000);
});
