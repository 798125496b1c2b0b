// application/api_hits/:id and application/list's stats (reference §4.12): API hits per application per day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, expectErrorShape, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';
import { until } from '../delivery/helpers.js';
import { apiHits } from '../../src/services/api-hits.js';

describe('API hits', () => {
  let server: TestService;
  let app: TestApp;
  let other: TestApp;

  beforeAll(async () => {
    server = await startApp();
    app = await createApp(server.api, 'counted');
    other = await createApp(server.api, 'other');
  });
  afterAll(() => server?.close());

  const hits = async (a: TestApp) => (await server.api.get(`/1/application/api_hits/${a.application_id}`, { token: a.access_token })).body.api_hits;
  const today = () => new Date().toISOString().slice(0, 10);

  it("counts each application's authenticated calls, today and this month, and nobody's failed ones", async () => {
    const { api } = server;
    for (let i = 0; i < 3; i++) expect((await api.get('/1/layer/list', { token: app.access_token })).status).toBe(200);
    await api.get('/1/layer/list', { token: 'app-00000000000000000000' });
    for (let i = 0; i < 5; i++) await api.get('/1/layer/list', { token: other.access_token });
    // Read beside the API, so that reading counts no hit: exactly the three (a hit is counted once answered).
    const counted = async (a: TestApp) => (await apiHits(server.app.ctx, a.application_id)).api_hits;
    await until(async () => (await counted(app)).today >= 3 && (await counted(other)).today >= 5);
    expect(await counted(app)).toEqual({ today: 3, this_month: 3, total: 3, daily: { [today()]: 3 }, monthly: { [`${today().slice(0, 7)}-01`]: 3 } });
    expect((await counted(other)).today).toBe(5);
    expect((await hits(app)).today).toBe(3);
    const listed = await api.get('/1/application/list', { token: app.access_token });
    expect(listed.body.applications[0].stats.api_hits.today).toBeGreaterThanOrEqual(4);
    const info = await api.get(`/1/application/info/${app.application_id}`, { token: app.access_token });
    expect(info.body.stats).toEqual({ api_hits: { today: expect.any(Number), this_month: expect.any(Number) } });
  });

  it('keeps the counts across a restart (written when the service closes)', async () => {
    const before = (await apiHits(server.app.ctx, app.application_id)).api_hits.today;
    await server.restart();
    expect((await apiHits(server.app.ctx, app.application_id)).api_hits.today).toBe(before);
  });

  it("reads another application's id as a missing one", async () => {
    const foreign = await server.api.get(`/1/application/api_hits/${other.application_id}`, { token: app.access_token });
    const missing = await server.api.get('/1/application/api_hits/Mi55ing', { token: app.access_token });
    expectErrorShape(foreign.body, 404, 'not_found');
    expect(foreign.body).toEqual(missing.body);
  });
});
