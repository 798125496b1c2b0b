// The timeline's switch and its lifetime, in process: TIMELINE=false records nothing (the engine
// fires as before, and the replay still answers), and a deleted user's entries go with them.
import { afterEach, describe, expect, it } from 'vitest';
import { createAnonUser, createApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

const point = (east: number, at: number) => ({
  date: new Date(at).toISOString(),
  location: { position: { latitude: 40, longitude: -74 + east / 85_000, horizontal_accuracy: 5 } },
});

async function walkedUser(s: TestService) {
  const app = await createApp(s.api);
  const user = await createAnonUser(s.api, app);
  const t = await s.api.post('/1/trigger/create', { token: app.access_token, json: { latitude: 40, longitude: -74, radius: 100, type: 'message', text: 'hi' } });
  expect(t.status).toBe(200);
  const t0 = Math.floor(Date.now() / 1000) * 1000 - 60_000;
  const walk = [point(-500, t0), point(0, t0 + 10_000), point(500, t0 + 20_000)];
  expect((await s.api.post('/1/location/update', { token: user.access_token, json: walk })).status).toBe(200);
  const timeline = async () => (await s.api.get('/1/trigger/timeline', { token: app.access_token, query: { user_id: user.user_id } })).body.entries;
  return { app, user, walk, timeline };
}

describe('TIMELINE', () => {
  it('false: firings as before, no entries; the replay still answers', async () => {
    service = await startApp({ env: { TIMELINE: 'false' } });
    const { app, user, walk, timeline } = await walkedUser(service);
    const history = await service.api.get('/1/trigger/history', { token: app.access_token, query: { user_id: user.user_id } });
    expect(history.body.history).toHaveLength(1);
    expect(await timeline()).toEqual([]);
    const replay = await service.api.post('/1/trigger/replay', { token: app.access_token, json: { user_id: user.user_id, points: walk } });
    expect(replay.body.firings.map((f: { firing_id: string }) => f.firing_id)).toEqual([history.body.history[0].event_id]);
  });

  it('true (the default): entries, gone with the user', async () => {
    service = await startApp();
    const { app, user, timeline } = await walkedUser(service);
    expect((await timeline()).map((e: { kind: string }) => e.kind)).toEqual(['transition', 'fired']);
    expect((await service.api.post(`/1/user/delete/${user.user_id}`, { token: app.access_token, json: {} })).status).toBe(200);
    const left = async () => (await service!.app.ctx.store.timeline.ofUser(app.application_id, user.user_id, {}, { offset: 0, limit: 1 })).total;
    for (let i = 0; i < 50 && (await left()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await left()).toBe(0);
  });
});
