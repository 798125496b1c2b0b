// The operator CLI (src/cli/admin.ts) against a real server: every verb prints the admin API's
// JSON answer; failures exit non-zero with the error body.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { ADMIN_TOKEN, startServer, type TestServer } from '../helpers/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

let server: TestServer;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command with a clean environment: only what the test passes, plus PATH. */
function run(cmd: string, args: string[], env: Record<string, string> = {}, timeout = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, timeout }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const cli = (args: string[], env: Record<string, string> = {}) =>
  run(tsx, ['src/cli/admin.ts', ...args], { ADMIN_TOKEN, PORT: new URL(server.url).port, ...env });

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

describe('npm run admin', () => {
  it('app create, list, update, rotate-secret and delete, each printing the JSON answer', async () => {
    const created = await cli(['app', 'create', '--name', 'From the CLI']);
    expect(created.code, created.stderr).toBe(0);
    const app = JSON.parse(created.stdout);
    expect(app).toMatchObject({ name: 'From the CLI', client_id: expect.any(String), client_secret: expect.any(String), webhook_secret: expect.stringMatching(/^whsec_/) });

    const listed = await cli(['app', 'list']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).applications.map((a: { application_id: string }) => a.application_id)).toContain(app.application_id);

    const updated = await cli(['app', 'update', app.application_id, '--name', 'Renamed', '--store-history', 'true']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ name: 'Renamed', store_history: 1 });

    const rotated = await cli(['app', 'rotate-secret', app.application_id, '--webhook']);
    expect(rotated.code).toBe(0);
    const secrets = JSON.parse(rotated.stdout);
    expect(secrets.client_secret).not.toBe(app.client_secret);
    expect(secrets.webhook_secret).not.toBe(app.webhook_secret);
    const api = new Api(server.url);
    const old = await api.post('/1/oauth/token', { form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret } });
    expect(old.status).toBe(401);

    const deleted = await cli(['app', 'delete', app.application_id]);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ deleted: app.application_id });
  });

  it('registers, replaces and clears redirect URIs', async () => {
    const created = await cli(['app', 'create', '--name', 'Web app', '--redirect-uri', 'https://a.example.com/cb', '--redirect-uri', 'com.example.app://oauth']);
    expect(created.code, created.stderr).toBe(0);
    const app = JSON.parse(created.stdout);
    expect(app.redirect_uris).toEqual(['https://a.example.com/cb', 'com.example.app://oauth']);
    const replaced = await cli(['app', 'update', app.application_id, '--redirect-uri', 'http://localhost:8080/cb']);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(JSON.parse(replaced.stdout).redirect_uris).toEqual(['http://localhost:8080/cb']);
    const cleared = await cli(['app', 'update', app.application_id, '--clear-redirect-uris']);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout).redirect_uris).toEqual([]);
    const refused = await cli(['app', 'update', app.application_id, '--redirect-uri', 'https://a.example.com/cb#top']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: 'invalid_input' });
  });

  it('exits non-zero with the error body when the server refuses', async () => {
    const missing = await cli(['app', 'delete', 'no-such-app']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr)).toMatchObject({ error_code: 404, error: 'not_found' });
    expect(missing.stdout).toBe('');

    // An id stored before ids avoided a leading '-' is still an id, not an unknown option.
    const dashed = await cli(['app', 'update', '-Tq9xYz_', '--name', 'x']);
    expect(dashed.code, dashed.stderr).toBe(1);
    expect(JSON.parse(dashed.stderr)).toMatchObject({ error_code: 404, error: 'not_found' });

    const wrongToken = await cli(['app', 'list'], { ADMIN_TOKEN: 'not-the-admin-token-at-all' });
    expect(wrongToken.code).toBe(1);
    expect(JSON.parse(wrongToken.stderr)).toMatchObject({ error_code: 401, error: 'invalid_token' });
  });

  it('takes --url and --token instead of the environment', async () => {
    const res = await run(tsx, ['src/cli/admin.ts', 'app', 'list', '--url', `${server.url}/`, '--token', ADMIN_TOKEN]);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toHaveProperty('applications');
  });

  it('explains usage mistakes with exit code 2, and an unreachable server with 1', async () => {
    for (const args of [[], ['app'], ['app', 'create'], ['app', 'frobnicate'], ['app', 'delete'], ['app', 'update', 'x', '--store-history', 'maybe'], ['app', 'list', '--bogus']]) {
      const res = await cli(args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain('usage: npm run admin');
    }
    const noToken = await run(tsx, ['src/cli/admin.ts', 'app', 'list', '--url', server.url]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('ADMIN_TOKEN');
    const down = await cli(['app', 'list', '--url', 'http://127.0.0.1:1']);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('cannot reach http://127.0.0.1:1');
  });

  // From dist/, built first when the sources changed (which can take a while on a busy machine).
  it('runs as the package script `npm run admin --`', async () => {
    const res = await run('npm', ['run', '--silent', 'admin', '--', 'app', 'list', '--url', server.url, '--token', ADMIN_TOKEN], {}, 170_000);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toHaveProperty('applications');
  }, 180_000);
});
