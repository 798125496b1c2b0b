// trigger/replay off the event loop, on the real server: a heavy replay (50 triggers on one place,
// 1,200 points in and out of it) runs in a `gt-replay` thread while /health answers, a second
// replay of the same application is refused with a 429, and a phone's location update is stored
// and its callback delivered before the replay answers; the thread ends once idle. A replay over
// the documented work limit, and GPX documents too long or too deep, are refused with a 400.
import { describe, expect, it } from 'vitest';
import { threadNames } from './helpers/engine-world.js';
import { engineSuite } from './helpers/suite.js';
import { offset, updatePoint, wholeSecond } from './helpers/track.js';
import { waitFor } from './helpers/wait.js';
import type { World } from './helpers/world.js';

const CENTRE = { latitude: 48.8566, longitude: 2.3522 };
// One replay per application at a time, a thread that ends a moment after its last replay, and a
// time budget no busy machine reaches.
const suite = engineSuite({ engine: { replay: { perApp: 1, idleMs: 200, timeoutMs: 300_000 } } });
const at = (east: number) => offset(CENTRE, east, 0);

async function post(w: World, path: string, body: unknown): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(`${w.api.base as string}${path}`, {
    method: 'POST', headers: { authorization: `OAuth ${w.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: await res.json() };
}

/** `n` points a minute apart, alternating inside the place (even) and 600 m away (odd). */
function alternating(n: number, t0: number) {
  return Array.from({ length: n }, (_, i) => updatePoint(at(i % 2 === 0 ? 0 : 600), t0 + i * 60_000));
}

async function triggersAt(w: World, placeId: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await w.ok('/1/trigger/create', { place_id: placeId, type: 'message', text: `t${i}` });
}

describe('trigger/replay in its own thread', () => {
  it('keeps /health, location updates and callbacks flowing during a heavy replay, and ends its thread when idle', async () => {
    const w = await suite.world();
    const place = await w.place({ ...at(0), radius: 100 });
    await triggersAt(w, place, 50);
    const hook = w.endpoint();
    // Far from the replay's place: the live user's trigger.
    const live = await w.trigger({ type: 'callback', url: hook.url }, { ...at(20_000), radius: 100 });
    const user = await w.user();
    const t0 = wholeSecond(Date.now()) - 3 * 86_400_000;
    const heavy = { place_ids: [place], points: alternating(1200, t0) };

    let answered = false;
    const running = post(w, '/1/trigger/replay', heavy).finally(() => {
      answered = true;
    });
    await waitFor('the replay in a gt-replay thread', () => suite.server.app.engine.replays.inFlight(w.app.application_id) === 1 && threadNames().includes('gt-replay'));

    const health = await fetch(`${suite.server.url}/health`);
    expect(health.status).toBe(200);
    const second = await post(w, '/1/trigger/replay', { place_ids: [place], points: alternating(2, t0) });
    expect(second.status).toBe(429);
    expect(second.json).toMatchObject({ error_code: 429, error: 'too_many_requests', error_description: expect.stringMatching(/1 at a time/) });
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);

    await w.send(user, [updatePoint(at(20_000), Date.now())]);
    const last = await w.api.get('/1/location/last', { token: user.access_token });
    expect(last.status).toBe(200);
    const [callback] = await hook.waitFor(1);
    expect(callback).toMatchObject({ triggered_on: 'enter', trigger: { trigger_id: live.trigger_id } });
    expect(answered).toBe(false);

    const res = await running;
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ points: 1200, pairs: 50, truncated: true, paging: { limit: 1000, next_offset: 1000 } });
    expect(res.json.entries).toHaveLength(1000);
    expect(res.json.summary.pairs).toHaveLength(50);
    // Each of the 600 entries into the place fired each of the 50 triggers.
    expect(res.json.summary.firings).toBe(50 * 600);
    expect(suite.server.app.engine.replays.inFlight()).toBe(0);
    // Idle, the thread ends, and its heap with it.
    await waitFor('the replay thread to end', () => !threadNames().includes('gt-replay'));
  });

  it('refuses a replay over the documented work limit (points × pairs) before running it', async () => {
    const w = await suite.world();
    const place = await w.place({ ...at(0), radius: 100 });
    await triggersAt(w, place, 51);
    const t0 = wholeSecond(Date.now()) - 30 * 86_400_000;
    const res = await post(w, '/1/trigger/replay', { place_ids: [place], points: alternating(10_000, t0) });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error_code: 400, error: 'invalid_input' });
    expect(res.json.error_description).toMatch(/10000 points × 51 pairs = 510000 steps; a replay takes at most 500000 \(points × pairs\)/);
    // At the limit it runs: 50 of the pairs (points far from the place: cheap to run).
    const triggers = (await w.api.get('/1/trigger/list', { token: w.token, query: { limit: 100 } })).body.triggers.map((t: any) => t.trigger_id);
    expect(triggers).toHaveLength(51);
    const far = Array.from({ length: 10_000 }, (_, i) => updatePoint(at(5000), t0 + i * 60_000));
    const fifty = await post(w, '/1/trigger/replay', { trigger_ids: triggers.slice(0, 50), points: far, limit: 1 });
    expect(fifty.status).toBe(200);
    expect(fifty.json).toMatchObject({ points: 10_000, pairs: 50 });
  });

  it('refuses a GPX track too long or too deep with a 400 in the error shape', async () => {
    const w = await suite.world();
    const place = await w.place({ ...at(0), radius: 100 });
    await triggersAt(w, place, 1);
    const trkpt = '<trkpt lat="48.8" lon="2.3"><time>2024-05-01T10:00:00Z</time></trkpt>';
    const long = `<gpx version="1.1"><trk><trkseg>${trkpt.repeat(100_000)}</trkseg></trk></gpx>`;
    const tooLong = await post(w, '/1/trigger/replay', { place_ids: [place], track: long });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json).toMatchObject({ error: 'invalid_input', error_description: expect.stringMatching(/at most 10000 points/) });
    const deep = `<gpx version="1.1">${'<extensions>'.repeat(100_000)}${'</extensions>'.repeat(100_000)}</gpx>`;
    const tooDeep = await post(w, '/1/trigger/replay', { place_ids: [place], track: deep });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.json).toMatchObject({ error: 'invalid_input', error_description: expect.stringMatching(/deeper than 32 levels/) });
  });
});
