// Replaying a user's kept points (docs/api.md "Replay", source): with the application's history
// off, trigger/replay source=history runs on the points behind the user's decision timeline and
// their last location, and says so; with history on it runs on the history, and source=timeline
// asks for the timeline's points anyway.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnonUser, createApp, expectErrorShape, type TestApp, type TestUser } from '../helpers/fixtures.js';
import { ADMIN_TOKEN, startApp, type TestService } from '../helpers/server.js';

const CENTRE = { latitude: 40, longitude: -74 };
const M_PER_DEG_LON = 111_195 * Math.cos((CENTRE.latitude * Math.PI) / 180);
const point = (east: number, at: number) => ({
  date: new Date(at).toISOString(),
  location: { position: { latitude: CENTRE.latitude, longitude: CENTRE.longitude + east / M_PER_DEG_LON, horizontal_accuracy: 5 } },
});
/** From 500 m west through the centre to 500 m east, a point every 20 m and 10 s. */
function walkThrough(t0: number) {
  const pts = [];
  for (let e = -500, i = 0; e <= 500; e += 20, i++) pts.push(point(e, t0 + i * 10_000));
  return pts;
}

describe('trigger/replay of a user\'s kept points', () => {
  let s: TestService;

  beforeAll(async () => {
    s = await startApp();
  });
  afterAll(async () => s?.close());

  /** An application with an enter and a leave trigger on one place, and a user who walked through it. */
  async function walked(storeHistory: boolean) {
    const app = await createApp(s.api, storeHistory ? 'with history' : 'without history');
    if (storeHistory) {
      const res = await s.api.post(`/admin/app/update/${app.application_id}`, { bearer: ADMIN_TOKEN, json: { store_history: true } });
      expect(res.status).toBe(200);
    }
    const place = await s.api.post('/1/place/create', { token: app.access_token, json: { ...CENTRE, radius: 100, name: 'Shop' } });
    const enter = await s.api.post('/1/trigger/create', { token: app.access_token, json: { place_id: place.body.place_id, type: 'message', text: 'in' } });
    await s.api.post('/1/trigger/create', { token: app.access_token, json: { place_id: place.body.place_id, type: 'message', text: 'out', trigger_on: 'leave' } });
    const user = await createAnonUser(s.api, app);
    const walk = walkThrough(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    expect((await s.api.post('/1/location/update', { token: user.access_token, json: walk })).status).toBe(200);
    const live = await s.api.get('/1/trigger/history', { token: app.access_token, query: { user_id: user.user_id } });
    expect(live.body.history).toHaveLength(2);
    return { app, user, walk, enterId: enter.body.trigger_id as string, liveIds: live.body.history.map((h: { event_id: string }) => h.event_id).sort() };
  }
  const replay = (app: TestApp, json: Record<string, unknown>) => s.api.post('/1/trigger/replay', { token: app.access_token, json });
  const timelineTotal = async (app: TestApp, user: TestUser) =>
    (await s.api.get('/1/trigger/timeline', { token: app.access_token, query: { user_id: user.user_id } })).body.paging.total;

  it('history off: source=history replays the timeline\'s points, says so, and gives the live firings', async () => {
    const { app, user, walk, liveIds } = await walked(false);
    const before = await timelineTotal(app, user);
    const res = await replay(app, { source: 'history', user_id: user.user_id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.track_source).toMatchObject({ kind: 'timeline', history_kept: false });
    expect(res.body.track_source.note).toMatch(/store_history is off/);
    expect(res.body.track_source.note).toMatch(/may decide differently/);
    // Fewer points than the phone sent, but those behind every decision.
    expect(res.body.points).toBeGreaterThan(1);
    expect(res.body.points).toBeLessThan(walk.length);
    expect(res.body.firings.map((f: { firing_id: string }) => f.firing_id).sort()).toEqual(liveIds);
    // Deterministic, and nothing written.
    const again = await replay(app, { source: 'history', user_id: user.user_id });
    expect(again.body).toEqual(res.body);
    expect(await timelineTotal(app, user)).toBe(before);
  });

  it('history off: a what-if runs on those points (a 300 s dwell on the enter trigger: too short a visit)', async () => {
    const { app, user, enterId } = await walked(false);
    const res = await replay(app, { source: 'history', user_id: user.user_id, overrides: { triggers: [{ trigger_id: enterId, trigger_after: 300 }] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.track_source.kind).toBe('timeline');
    expect(res.body.firings.filter((f: { trigger_id: string }) => f.trigger_id === enterId)).toEqual([]);
    expect(res.body.entries.some((e: { trigger_id: string; note: string }) => e.trigger_id === enterId && e.note === 'dwell_too_short')).toBe(true);
    expect(res.body.what_if.triggers).toEqual([enterId]);
  });

  it('history on: source=history replays every point; source=timeline only the timeline\'s, and says the history has them all', async () => {
    const { app, user, walk, liveIds } = await walked(true);
    const full = await replay(app, { source: 'history', user_id: user.user_id });
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    expect(full.body.track_source).toMatchObject({ kind: 'history', history_kept: true });
    expect(full.body.points).toBe(walk.length);
    const kept = await replay(app, { source: 'timeline', user_id: user.user_id });
    expect(kept.body.track_source).toMatchObject({ kind: 'timeline', history_kept: true });
    expect(kept.body.points).toBeLessThan(walk.length);
    expect(kept.body.firings.map((f: { firing_id: string }) => f.firing_id).sort()).toEqual(liveIds);
  });

  it('a track in the request says so; a range narrows the kept points', async () => {
    const { app, user, walk } = await walked(false);
    const given = await replay(app, { user_id: user.user_id, points: walk });
    expect(given.body.track_source).toEqual({ kind: 'request', note: null });
    const all = await replay(app, { source: 'history', user_id: user.user_id });
    const firstHalf = await replay(app, { source: 'history', user_id: user.user_id, before: walk[25]!.date });
    expect(firstHalf.status).toBe(200);
    expect(firstHalf.body.points).toBeLessThan(all.body.points);
    expect(firstHalf.body.firings.map((f: { event: string }) => f.event)).toEqual(['enter']);
  });

  it('a user with nothing kept is a 400 that says why; another application\'s user is a 404', async () => {
    const { app } = await walked(false);
    const quiet = await createAnonUser(s.api, app);
    const none = await replay(app, { source: 'history', user_id: quiet.user_id });
    expectErrorShape(none.body, 400, 'invalid_input');
    expect(none.body.error_description).toMatch(/does not keep location history .* no decision timeline points/);
    const other = await walked(false);
    const foreign = await replay(app, { source: 'history', user_id: other.user.user_id });
    expectErrorShape(foreign.body, 404);
    expect(foreign.status).toBe(404);
    const noUser = await replay(app, { source: 'timeline', place_ids: [] });
    expect(noUser.status).toBe(400);
  });
});
