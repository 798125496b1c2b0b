// POST /1/trigger/replay end to end: a track (points, GPX, GeoJSON or the stored history) against
// the current triggers gives the full timeline of what would fire and why, byte for byte the same
// each time, the same firings as the live engine gives for the same walk, and no side effect.
import { describe, it } from 'vitest';
import { engineSuite } from './helpers/suite.js';
import { offset, Track, updatePoint, wholeSecond, type UpdatePoint } from './helpers/track.js';
import type { World } from './helpers/world.js';
import { seconds } from './helpers/world.js';

const CENTRE = { latitude: 51.5074, longitude: -0.1278 };
// The tests below run side by side, each its own application: room for all their replays at once.
const suite = engineSuite({ engine: { replay: { total: 16 } } });
const world = suite.world;
const at = (east: number, north = 0) => offset(CENTRE, east, north);

async function replayText(w: World, body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const res = await fetch(`${w.api.base as string}/1/trigger/replay`, {
    method: 'POST', headers: { authorization: `OAuth ${w.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function replay(w: World, body: Record<string, unknown>): Promise<any> {
  const res = await replayText(w, body);
  if (res.status !== 200) throw new Error(`trigger/replay: ${res.status} ${res.text}`);
  return JSON.parse(res.text);
}

/** Three places in a row: enter, leave and dwell (30 s) triggers; the walk crosses them all, lingering in the third. */
async function scene(w: World) {
  const enter = await w.trigger({ type: 'message', text: 'in' }, { ...at(0), radius: 100 });
  const leave = await w.trigger({ type: 'message', text: 'out', trigger_on: 'leave' }, { ...at(600), radius: 100 });
  const dwell = await w.trigger({ type: 'message', text: 'stay', trigger_after: 30 }, { ...at(1200), radius: 100 });
  const t0 = wholeSecond(Date.now()) - 1_800_000;
  const walk = new Track(CENTRE, t0).at(-300, 0).walkTo(1200, 0, { speed: 5, every: 10 }).wait(60).walkTo(1600, 0, { speed: 5, every: 10 }).points();
  return { enter, leave, dwell, walk, t0 };
}

const firingsOf = (r: any) => r.firings.map((f: any) => [f.event === 'dwell' ? 'enter' : f.event, f.trigger_id, f.place_id, f.date_ts, f.firing_id]);

describe.concurrent('trigger/replay', () => {
  it('is deterministic, has no side effect, and fires what the live engine fires for the same walk', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const s = await scene(w);
    const body = { user_id: user.user_id, points: s.walk };

    const first = await replayText(w, body);
    const second = await replayText(w, body);
    expect(first.status).toBe(200);
    expect(second.text).toBe(first.text);
    const r = JSON.parse(first.text);
    expect(r.points).toBe(s.walk.length);
    expect(r.firings.map((f: any) => [f.event, f.trigger_id])).toEqual([
      ['enter', s.enter.trigger_id], ['leave', s.leave.trigger_id], ['dwell', s.dwell.trigger_id],
    ]);
    expect(r.entries.every((e: any, i: number) => i === 0 || e.date_ts >= r.entries[i - 1].date_ts)).toBe(true);
    expect(r.final_states).toEqual([]);

    // Nothing stored, nothing sent, no machine moved.
    expect(await w.firings(user.user_id)).toEqual([]);
    expect((await w.api.get('/1/trigger/timeline', { token: w.token, query: { user_id: user.user_id } })).body.entries).toEqual([]);
    expect((await w.api.get('/1/trigger/state', { token: w.token, query: { user_id: user.user_id } })).body.machines).toEqual([]);
    expect((await w.api.get('/1/location/last', { token: user.access_token })).status).toBe(404);
    expect(await w.messages(user)).toEqual([]);

    // The same walk, live: the same firings, with the same event ids.
    await w.send(user, s.walk);
    const live = await w.waitFirings(user.user_id, 3);
    expect(live.map((f) => [f.triggered_on, f.trigger.trigger_id, f.place.place_id, f.date_ts, f.event_id])).toEqual(firingsOf(r));
    // And the live timeline's decisions are the replay's.
    const tl = (await w.api.get('/1/trigger/timeline', { token: w.token, query: { user_id: user.user_id } })).body.entries.slice().reverse();
    const strip = (e: any) => [e.kind, e.event, e.from, e.to, e.gate, e.note, e.trigger_id, e.place_id, e.date_ts, e.firing_id];
    expect(tl.map(strip)).toEqual(r.entries.map(strip));
  });

  it('takes a GPX track and a GeoJSON LineString with times, with the same answer as the points', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const s = await scene(w);
    const pos = s.walk.map((p: UpdatePoint) => ({ lat: p.location.position.latitude, lon: p.location.position.longitude, time: p.date }));
    const gpx = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>walk</name><trkseg>
${pos.map((p) => `<trkpt lat="${p.lat}" lon="${p.lon}"><time>${p.time}</time></trkpt>`).join('\n')}
</trkseg></trk></gpx>`;
    const geojson = {
      type: 'Feature', properties: { coordinateProperties: { times: pos.map((p) => p.time) } },
      geometry: { type: 'LineString', coordinates: pos.map((p) => [p.lon, p.lat]) },
    };
    // Accuracy 0 on a track, as GPX carries none: the points' accuracy (10 m) changes no zone here.
    const points = await replay(w, { user_id: user.user_id, points: s.walk });
    const fromGpx = await replay(w, { user_id: user.user_id, track: gpx });
    const fromGeo = await replay(w, { user_id: user.user_id, track: geojson, format: 'geojson' });
    expect(firingsOf(fromGpx)).toEqual(firingsOf(points));
    expect(firingsOf(fromGeo)).toEqual(firingsOf(points));

    const bad = await replayText(w, { user_id: user.user_id, track: '<gpx><trk>' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({ error: 'invalid_input', error_description: expect.stringMatching(/GPX/) });
    const untimed = await replayText(w, { user_id: user.user_id, track: { type: 'LineString', coordinates: [[0, 0], [0, 1]] } });
    expect(untimed.status).toBe(400);
    expect(JSON.parse(untimed.text).error_description).toMatch(/needs a time/);
  });

  it('replays a user\'s stored history against the triggers as they are now (source=history)', async ({ expect }) => {
    const w = await world();
    await w.storeHistory();
    const user = await w.user();
    const s = await scene(w);
    await w.send(user, s.walk);
    const live = await w.waitFirings(user.user_id, 3);
    const r = await replay(w, { source: 'history', user_id: user.user_id });
    expect(r.points).toBe(s.walk.length);
    expect(firingsOf(r)).toEqual(live.map((f) => [f.triggered_on, f.trigger.trigger_id, f.place.place_id, f.date_ts, f.event_id]));
    // A trigger changed since: the replay answers for the triggers as they are now.
    await w.ok(`/1/trigger/update/${s.enter.trigger_id}`, { trigger_on: 'leave' });
    const after = await replay(w, { source: 'history', user_id: user.user_id, trigger_ids: [s.enter.trigger_id] });
    expect(after.firings.map((f: any) => f.event)).toEqual(['leave']);
    // An application without history has none to replay.
    const other = await world();
    const u2 = await other.user();
    const none = await replayText(other, { source: 'history', user_id: u2.user_id });
    expect(none.status).toBe(400);
  });

  it('scopes by ids without a user, starts from given states, and fires a dwell still pending at the end at its deadline', async ({ expect }) => {
    const w = await world();
    const s = await scene(w);
    const t0 = s.t0;
    // Only the leave trigger; the track starts inside its place: the first point out fires it.
    const r = await replay(w, {
      trigger_ids: [s.leave.trigger_id],
      start_states: [{ trigger_id: s.leave.trigger_id, place_id: s.leave.place_id, state: 'inside', since: seconds(t0) }],
      points: [updatePoint(at(600), t0 + 10_000), updatePoint(at(900), t0 + 20_000)],
    });
    expect(r.firings.map((f: any) => [f.event, f.trigger_id, f.date_ts])).toEqual([['leave', s.leave.trigger_id, seconds(t0) + 20]]);
    // One point inside the dwell place, then the track ends: the clock fires the dwell at entry + 30 s.
    const d = await replay(w, { place_ids: [s.dwell.place_id!], points: [updatePoint(at(1200), t0)] });
    expect(d.firings.map((f: any) => [f.event, f.date_ts])).toEqual([['dwell', seconds(t0) + 30]]);
    expect(d.entries.at(-1)).toMatchObject({ kind: 'fired', point: null });
    expect(d.final_states).toMatchObject([{ trigger_id: s.dwell.trigger_id, state: 'dwelling' }]);
  });

  it('refuses what it cannot replay with a clear 4xx', async ({ expect }) => {
    const w = await world();
    const user = await w.user();
    const s = await scene(w);
    const p = updatePoint(at(0), s.t0);
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ points: [p] }, 400, /user_id/],
      [{ user_id: user.user_id }, 400, /points, track or source/],
      [{ user_id: user.user_id, points: [p], track: 'x' }, 400, /exactly one/],
      [{ user_id: user.user_id, points: Array.from({ length: 10_001 }, () => p) }, 400, /at most 10000 points/],
      [{ user_id: user.user_id, points: [{ date: 'soon' }] }, 400, /point 0/],
      [{ user_id: 'nobody', points: [p] }, 404, /User/],
      [{ trigger_ids: ['nope'], points: [p] }, 404, /Trigger/],
      [{ user_id: user.user_id, points: [p], extra: 1 }, 400, /Unknown parameter: extra/],
    ];
    for (const [body, status, message] of cases) {
      const res = await replayText(w, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(JSON.parse(res.text).error_description).toMatch(message);
    }
    // Another application's trigger is as missing.
    const other = await world();
    const res = await replayText(other, { trigger_ids: [s.enter.trigger_id], points: [p] });
    expect(res.status).toBe(404);
  });
});
