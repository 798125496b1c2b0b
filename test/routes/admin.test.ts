// The operator's admin API (issue 2 "Applications"): create, list, rotate secret, update, delete
// with cascade; guarded by ADMIN_TOKEN, and saying it is off (how to turn it on) when that is unset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type RequestOptions } from '../helpers/api.js';
import { createApp, createAnonUser, expectErrorShape } from '../helpers/fixtures.js';
import { listApplications } from '../../src/services/applications.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';
import { storedOfApp } from '../helpers/stored.js';
import { openStream } from '../helpers/stream.js';
import { until } from '../delivery/helpers.js';

let server: TestService;
let api: Api;

beforeAll(async () => {
  server = await startApp();
  api = server.api;
});
afterAll(async () => {
  await server?.close();
});

const appToken = (clientId: string, clientSecret: string) =>
  api.post('/1/oauth/token', { form: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });

describe('admin API', () => {
  it('app/create answers every credential the issue names, and they work', async () => {
    const res = await api.post('/admin/app/create', { bearer: ADMIN_TOKEN, json: { name: 'Fresh app' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      application_id: expect.any(String), name: 'Fresh app', client_id: expect.any(String), client_secret: expect.any(String),
      access_token: expect.any(String), webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]+$/),
    });
    expect((await appToken(res.body.client_id, res.body.client_secret)).status).toBe(200);
    expect((await api.get('/1/user/list', { token: res.body.access_token })).status).toBe(200);
  });

  it('app/list shows applications without any secret', async () => {
    const created = await createApp(api, 'listed app');
    const res = await api.get('/admin/app/list', { bearer: ADMIN_TOKEN });
    expect(res.status).toBe(200);
    const row = res.body.applications.find((a: { application_id: string }) => a.application_id === created.application_id);
    expect(row).toMatchObject({ name: 'listed app', client_id: created.client_id, store_history: 0 });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(created.client_secret);
    expect(text).not.toContain(created.webhook_secret);
    expect(text).not.toContain('hash');
  });

  it('rotate_secret: the old secret stops working at once; the webhook secret changes only when asked', async () => {
    const a = await createApp(api, 'rotating');
    const rotated = await api.post(`/admin/app/rotate_secret/${a.application_id}`, { bearer: ADMIN_TOKEN, json: {} });
    expect(rotated.status).toBe(200);
    expect(rotated.body.client_secret).not.toBe(a.client_secret);
    expect(rotated.body.webhook_secret).toBe(a.webhook_secret);
    const old = await appToken(a.client_id, a.client_secret);
    expect(old.status).toBe(401);
    expectErrorShape(old.body, 401, 'invalid_client');
    expect((await api.get('/1/user/list', { basic: [a.client_id, a.client_secret] })).status).toBe(401);
    expect((await appToken(a.client_id, rotated.body.client_secret)).status).toBe(200);
    // The application token is replaced too (rotate-secret-tokens.test.ts has the details).
    expect((await api.get('/1/user/list', { token: a.access_token })).status).toBe(401);
    expect((await api.get('/1/user/list', { token: rotated.body.access_token })).status).toBe(200);

    const withWebhook = await api.post(`/admin/app/rotate_secret/${a.application_id}`, { bearer: ADMIN_TOKEN, json: { webhook: true } });
    expect(withWebhook.body.webhook_secret).toMatch(/^whsec_/);
    expect(withWebhook.body.webhook_secret).not.toBe(a.webhook_secret);
    // The replaced signing secret keeps signing for a day (WEBHOOK_SECRET_OVERLAP_S), and says until when.
    expect(Date.parse(withWebhook.body.previous_webhook_secret_expires_at) - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    expect(rotated.body.previous_webhook_secret_expires_at).toBeNull();
  });

  it('app/update changes the name and the history setting', async () => {
    const a = await createApp(api, 'before');
    const res = await api.post(`/admin/app/update/${a.application_id}`, { bearer: ADMIN_TOKEN, json: { name: 'after', store_history: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ application_id: a.application_id, name: 'after', store_history: 1 });
    const bad = await api.post(`/admin/app/update/${a.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: 'maybe' } });
    expect(bad.status).toBe(400);
    expectErrorShape(bad.body, 400);
  });

  it('app/update sets callback_batch_max from 1 to 100; it starts at 1 (one event per POST)', async () => {
    const a = await createApp(api, 'batching');
    const listed = await api.get('/admin/app/list', { bearer: ADMIN_TOKEN });
    expect(listed.body.applications.find((x: { application_id: string }) => x.application_id === a.application_id)).toMatchObject({ callback_batch_max: 1 });
    const res = await api.post(`/admin/app/update/${a.application_id}`, { bearer: ADMIN_TOKEN, json: { callback_batch_max: 50 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ callback_batch_max: 50 });
    for (const v of [0, 101, 2.5, 'many']) {
      const bad = await api.post(`/admin/app/update/${a.application_id}`, { bearer: ADMIN_TOKEN, json: { callback_batch_max: v } });
      expect(bad.status).toBe(400);
      expectErrorShape(bad.body, 400);
    }
  });

  it('app/create and app/update refuse an empty or blank name, and the stored name stays', async () => {
    const a = await createApp(api, 'named');
    const apps = async () => (await api.get('/admin/app/list', { bearer: ADMIN_TOKEN })).body.applications.length;
    const before = await apps();
    for (const name of ['', '   ', '\t\n']) {
      for (const res of [
        await api.post('/admin/app/create', { bearer: ADMIN_TOKEN, json: { name } }),
        await api.post(`/admin/app/update/${a.application_id}`, { bearer: ADMIN_TOKEN, json: { name, store_history: true } }),
      ]) {
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expectErrorShape(res.body, 400, 'invalid_input');
        expect(res.body.error_description).toBe('body.name must be a name with at least one character other than a space');
      }
    }
    expect(await apps()).toBe(before);
    const row = (await api.get('/admin/app/list', { bearer: ADMIN_TOKEN })).body.applications.find((x: { application_id: string }) => x.application_id === a.application_id);
    expect(row).toMatchObject({ name: 'named', store_history: 0 });
    // Spaces around a name are the operator's to keep.
    const padded = await api.post(`/admin/app/update/${a.application_id}`, { bearer: ADMIN_TOKEN, json: { name: ' padded ' } });
    expect(padded.status).toBe(200);
    expect(padded.body.name).toBe(' padded ');
  });

  it('app/delete removes the application and everything it owns; others are untouched', async () => {
    const doomed = await createApp(api, 'doomed');
    const kept = await createApp(api, 'kept');
    const user = await createAnonUser(api, doomed);
    const keptUser = await createAnonUser(api, kept);
    // Points (history kept), a machine and its timeline: the engine's tables too.
    await api.post(`/admin/app/update/${doomed.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } });
    await api.post('/1/trigger/create', { token: doomed.access_token, json: { type: 'message', text: 'in', latitude: 45.52, longitude: -122.68, radius: 300 } });
    const here = { location: { position: { latitude: 45.52, longitude: -122.68, horizontal_accuracy: 10 } } };
    expect((await api.post('/1/location/update', { token: user.access_token, json: [{ date: new Date().toISOString(), ...here }] })).status).toBe(200);
    const res = await api.post(`/admin/app/delete/${doomed.application_id}`, { bearer: ADMIN_TOKEN });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: doomed.application_id });

    expect((await api.get('/1/account/profile', { token: user.access_token })).status).toBe(401);
    expect((await api.get('/1/user/list', { token: doomed.access_token })).status).toBe(401);
    expect((await appToken(doomed.client_id, doomed.client_secret)).status).toBe(401);
    const list = await api.get('/admin/app/list', { bearer: ADMIN_TOKEN });
    expect(list.body.applications.some((a: { application_id: string }) => a.application_id === doomed.application_id)).toBe(false);
    const again = await api.post(`/admin/app/delete/${doomed.application_id}`, { bearer: ADMIN_TOKEN });
    expect(again.status).toBe(404);
    expectErrorShape(again.body, 404, 'not_found');
    // No row of any collection still names the deleted application.
    for (const [name, rows] of storedOfApp(server, doomed.application_id)) expect(rows, name).toEqual([]);
    expect((await api.get('/1/account/profile', { token: keptUser.access_token })).status).toBe(200);
  });

  it('app/delete closes its users\' live streams and stops its machines: a dwell deadline writes nothing after it', async () => {
    const doomed = await createApp(api, 'doomed live');
    const trigger = await api.post('/1/trigger/create', {
      token: doomed.access_token, json: { type: 'message', text: 'stayed', latitude: 45.52, longitude: -122.68, radius: 300, trigger_after: 2 },
    });
    expect(trigger.status).toBe(200);
    const user = await createAnonUser(api, doomed);
    const point = { date: new Date().toISOString(), location: { position: { latitude: 45.52, longitude: -122.68, horizontal_accuracy: 10 } } };
    expect((await api.post('/1/location/update', { token: user.access_token, json: [point] })).status).toBe(200);
    const stream = await openStream(server, { authorization: `OAuth ${user.access_token}` });
    const machines = async () => (await server.app.ctx.store.machines.seeds()).filter((m) => m.user_id === user.user_id).length;
    // The user is inside: its machine is stored, with a dwell deadline two seconds on.
    await until(async () => (await machines()) > 0);

    expect((await api.post(`/admin/app/delete/${doomed.application_id}`, { bearer: ADMIN_TOKEN })).status).toBe(200);
    expect(await until(() => stream.closeCode)).toBe(4401);
    // The clock reaches past the dwell deadline: the user's machine was dropped, not moved to dwelling and saved again.
    await server.app.engine.tick(Date.now() + 60_000);
    expect(await machines()).toBe(0);
    stream.ws.terminate();
  });

  it('unknown ids are 404 on every verb', async () => {
    for (const path of ['/admin/app/rotate_secret/nope', '/admin/app/update/nope', '/admin/app/delete/nope']) {
      const res = await api.post(path, { bearer: ADMIN_TOKEN, json: path.includes('update') ? { name: 'x' } : {} });
      expect(res.status, path).toBe(404);
      expectErrorShape(res.body, 404, 'not_found');
    }
  });

  it('refuses a missing, wrong or non-admin token with 401 and a Bearer challenge', async () => {
    const a = await createApp(api, 'token probe');
    for (const opts of [{}, { bearer: 'wrong-admin-token-000000' }, { bearer: `${ADMIN_TOKEN}x` }, { token: a.access_token }, { basic: [a.client_id, a.client_secret] as [string, string] }]) {
      for (const [method, path] of [['GET', '/admin/app/list'], ['POST', '/admin/app/create']]) {
        const res = await api.request(method, path, { ...opts, json: method === 'POST' ? { name: 'x' } : undefined });
        expect(res.status, `${path} ${JSON.stringify(opts)}`).toBe(401);
        expectErrorShape(res.body, 401, 'invalid_token');
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    }
  });

  it('refuses a bad create body with 400', async () => {
    for (const json of [{}, { name: { nested: 1 } }, { name: 'x', extra: 1 }, { name: 'x'.repeat(201) }]) {
      const res = await api.post('/admin/app/create', { bearer: ADMIN_TOKEN, json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expectErrorShape(res.body, 400);
    }
  });
});

describe('admin API without ADMIN_TOKEN', () => {
  it('does nothing: every admin path is 404 not_found, saying the admin API is off and how to turn it on', async () => {
    const bare = await startApp({ env: { ADMIN_TOKEN: '' } });
    try {
      const client = bare.api;
      const calls: Array<[string, string, RequestOptions]> = [
        ['POST', '/admin/app/create', { bearer: ADMIN_TOKEN, json: { name: 'x' } }],
        ['GET', '/admin/app/list', {}],
        ['POST', '/admin/app/delete/x', { bearer: 'anything' }],
        // Whatever the body, the answer is the same: it is not read.
        ['POST', '/admin/app/create', { rawBody: '{not json', headers: { 'content-type': 'application/json' } }],
        ['POST', '/admin/app/create', { rawBody: 'x', headers: { 'content-type': 'image/png' } }],
      ];
      for (const [method, path, opts] of calls) {
        const res = await client.request(method, path, opts);
        expect(res.status, path).toBe(404);
        expectErrorShape(res.body, 404, 'not_found');
        expect(res.body.error_description).toMatch(/admin API is disabled: set ADMIN_TOKEN \(at least 16 characters\).*restart/);
      }
      // The routes did nothing: no application was created, and the service is otherwise up.
      expect(await listApplications(bare.app.ctx)).toEqual([]);
      expect((await client.get('/health')).status).toBe(200);
      // The disabled admin paths are not documented as API methods.
      const doc = (await client.get('/docs/json')).body as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths).filter((p) => p.startsWith('/admin'))).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});

describe('admin token guessing', () => {
  it('is limited as client secrets are: past AUTH_CLIENT_FAILURES wrong tokens, a 429 whatever the token, until the window closes', async () => {
    const guarded = await startApp({ env: { AUTH_CLIENT_FAILURES: '3', AUTH_FAILURE_WINDOW_S: '1' } });
    try {
      const client = guarded.api;
      // No token at all is not a guess.
      for (let i = 0; i < 5; i++) expect((await client.get('/admin/app/list')).status).toBe(401);
      expect((await client.get('/admin/app/list', { bearer: ADMIN_TOKEN })).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const wrong = await client.get('/admin/app/list', { bearer: `wrong-admin-token-${i}` });
        expect(wrong.status).toBe(401);
        expectErrorShape(wrong.body, 401, 'invalid_token');
      }
      for (const token of ['wrong-admin-token-x', ADMIN_TOKEN]) {
        const refused = await client.post('/admin/app/create', { bearer: token, json: { name: 'not created' } });
        expect(refused.status).toBe(429);
        expectErrorShape(refused.body, 429, 'too_many_requests');
        expect(refused.body.error_description).toContain('admin API');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect((await listApplications(guarded.app.ctx)).map((a) => a.name)).not.toContain('not created');
      // Once the window has closed the right token works again.
      await until(async () => (await client.get('/admin/app/list', { bearer: ADMIN_TOKEN })).status === 200);
    } finally {
      await guarded.close();
    }
  });
});
