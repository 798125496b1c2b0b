// Shaped places end to end (docs/api.md "Shapes", machines/README.md "Zones"): polygons and
// corridors made through the API, phones walking through them over real HTTP into the real engine
// (worker threads, embedded store on disk), signed callbacks into a real receiver. The rule is the
// circle's, measured from the boundary: in on or inside it, out only beyond it by the leave margin.
import { describe, it } from 'vitest';
import { engineSuite } from './helpers/suite.js';
import { distanceM, offset, Track, wholeSecond } from './helpers/track.js';
import { waitFor } from './helpers/wait.js';
import { seconds, type World } from './helpers/world.js';

const O = { latitude: 45.5165, longitude: -122.6764 };
/** [longitude, latitude] of the point `east`, `north` metres from O. */
const at = (east: number, north: number): [number, number] => {
  const p = offset(O, east, north);
  return [p.longitude, p.latitude];
};
const square = (x0: number, y0: number, x1: number, y1: number) => [at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1), at(x0, y0)];

const suite = engineSuite();
const world = suite.world;
const start = () => wholeSecond(Date.now()) - 600_000;

/** A place of this geometry with an enter and a leave callback trigger on it. */
async function shapedPlace(w: World, url: string, geometry: unknown, width?: number) {
  const place = await w.ok('/1/place/create', { name: 'shape', geometry, ...(width !== undefined ? { width } : {}) });
  const enter = await w.trigger({ place_id: place.place_id, type: 'callback', url, trigger_on: 'enter' });
  const leave = await w.trigger({ place_id: place.place_id, type: 'callback', url, trigger_on: 'leave' });
  return { place, enter: enter.trigger_id, leave: leave.trigger_id };
}

/** The device times of the track's points at these (east, north) spots, for the firings expected there. */
function timeAt(track: Track, spot: [number, number]): number {
  const where = offset(O, spot[0], spot[1]);
  const p = track.positions().find((q) => distanceM(q, where) < 0.1);
  if (!p) throw new Error(`no point at ${spot}`);
  return seconds(p.at);
}

describe.concurrent('an L-shaped lot', () => {
  // 200 m × 200 m, its north-east quarter missing; its largest inner circle is about 60 m, so the
  // leave margin is the 20 m minimum.
  const L = { type: 'Polygon', coordinates: [[at(0, 0), at(200, 0), at(200, 100), at(100, 100), at(100, 200), at(0, 200), at(0, 0)]] };

  it('a walk through the missing corner of the L never enters', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const { place } = await shapedPlace(w, hook.url, L);
    const user = await w.user();
    // From outside the L's box, through the notch to 5 m from its inner corner: all of it in the
    // L's box and most of it within its centre's circle, none of it in the L.
    const track = new Track(O, start()).at(300, 300).walkTo(105, 105, { speed: 5, every: 2 }).walkTo(195, 105, { speed: 5, every: 2 });
    await w.send(user, track.points());
    expect(await w.firings(user.user_id)).toEqual([]);
    const [m] = (await w.api.get(`/1/trigger/state/${(await firstTrigger(w, place.place_id))}`, { token: w.token, query: { user_id: user.user_id } })).body.machines;
    expect(m).toMatchObject({ state: 'outside', zone: 'band' });
    expect(m.explanation).toMatch(/5 m outside the polygon's edge, inside the 20 m leave margin/);
    expect(hook.requests).toHaveLength(0);
  });

  it('a walk into the L enters at its edge and leaves only past the 20 m margin', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const t = await shapedPlace(w, hook.url, L);
    const user = await w.user();
    // West of the lower arm, east into it (the edge is at x = 0), back out west in 1 m steps:
    // 15.5 … 19.5 m out is the band, 20.5 m is past the margin.
    const track = new Track(O, start()).at(-95, 50).walkTo(55, 50, { speed: 5, every: 2 }).walkTo(-15.5, 50, { speed: 5, every: 2 })
      .walkTo(-25.5, 50, { speed: 1, every: 1 });
    await w.send(user, track.points());
    const events = await hook.waitFor(2);
    const firings = (await w.waitFirings(user.user_id, 2)).map((f) => [f.triggered_on, f.trigger.trigger_id, f.date_ts]);
    expect(firings).toEqual([['enter', t.enter, timeAt(track, [5, 50])], ['leave', t.leave, timeAt(track, [-20.5, 50])]]);
    // The payload carries the place's shape with its centre.
    expect(events.find((e) => e.triggered_on === 'enter')!.place).toMatchObject({ place_id: t.place.place_id, geometry: L, latitude: t.place.latitude, radius: t.place.radius });
  });

  it('trigger/replay measures the L as the live engine does: the notch never enters, the arm does', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const t = await shapedPlace(w, hook.url, L);
    const user = await w.user();
    const notch = new Track(O, start()).at(300, 300).walkTo(105, 105, { speed: 5, every: 2 }).walkTo(195, 105, { speed: 5, every: 2 });
    const arm = new Track(O, start()).at(-95, 50).walkTo(55, 50, { speed: 5, every: 2 }).walkTo(-15.5, 50, { speed: 5, every: 2 })
      .walkTo(-25.5, 50, { speed: 1, every: 1 });
    const replay = async (points: unknown[]) => {
      const res = await w.api.post('/1/trigger/replay', { token: w.token, json: { user_id: user.user_id, points } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.firings as any[]).map((f) => [f.event, f.trigger_id, f.date_ts]);
    };
    expect(await replay(notch.points())).toEqual([]);
    expect(await replay(arm.points())).toEqual([['enter', t.enter, timeAt(arm, [5, 50])], ['leave', t.leave, timeAt(arm, [-20.5, 50])]]);
    expect(hook.requests).toHaveLength(0);
  });
});

describe.concurrent('a corridor', () => {
  // A route 1 km east then 1 km north, 50 m wide: in within 25 m of the line, the margin 20 m.
  const ROUTE = { type: 'LineString', coordinates: [at(0, 0), at(1000, 0), at(1000, 1000)] };

  it('a driver who leaves the route by more than half the width plus the margin fires leave, once', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const t = await shapedPlace(w, hook.url, ROUTE, 50);
    const user = await w.user();
    const track = new Track(O, start()).at(0, 3).walkTo(500, 3, { speed: 15, every: 4 })
      // Off the route northwards: 44 m from the line (19 m outside, the band), then 46 m.
      .at(500, 30, 4).at(500, 44, 4).at(500, 46, 4).walkTo(600, 300, { speed: 15, every: 4 });
    await w.send(user, track.points());
    await hook.waitFor(2);
    const firings = (await w.waitFirings(user.user_id, 2)).map((f) => [f.triggered_on, f.trigger.trigger_id, f.date_ts]);
    expect(firings).toEqual([['enter', t.enter, timeAt(track, [0, 3])], ['leave', t.leave, timeAt(track, [500, 46])]]);
    const timeline = (await w.api.get('/1/trigger/timeline', { token: w.token, query: { user_id: user.user_id, trigger_id: t.leave } })).body.entries;
    const band = timeline.find((e: any) => e.note === 'band');
    expect(band).toMatchObject({ zone: 'band', boundary: { shape: 'corridor', margin_m: 20 } });
    expect(band.reason).toMatch(/in the hysteresis band \(\d+ m outside the corridor's edge, inside the 20 m leave margin\)/);
  });

  it('a driver who strays into the margin and back, round the bend, never leaves', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const t = await shapedPlace(w, hook.url, ROUTE, 50);
    const user = await w.user();
    const track = new Track(O, start(), { seed: 7 }).at(-10, 0).walkTo(1000, -40, { speed: 15, every: 4, jitter: 3 })
      .walkTo(1040, 1000, { speed: 15, every: 4, jitter: 3 });
    await w.send(user, track.points());
    const [enter] = await w.waitFirings(user.user_id, 1);
    expect(enter).toMatchObject({ triggered_on: 'enter', trigger: { trigger_id: t.enter } });
    // Everything was stored before location/update answered: no leave was recorded.
    expect((await w.firings(user.user_id)).map((f) => f.triggered_on)).toEqual(['enter']);
  });
});

describe.concurrent('a MultiPolygon with a hole', () => {
  // Part A: 400 m square with a 200 m square hole in its middle; part B: 200 m × 400 m, 200 m east of A.
  // Its radius is B's inner circle (100 m), so the margin is 20 m.
  const SHAPE = { type: 'MultiPolygon', coordinates: [[square(0, 0, 400, 400), square(100, 100, 300, 300).reverse()], [square(600, 0, 800, 400)]] };

  it('enters the ring, leaves into the hole past the margin, enters again, leaves, enters the other part', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const t = await shapedPlace(w, hook.url, SHAPE);
    expect(t.place.radius).toBeCloseTo(100, -1);
    const user = await w.user();
    const track = new Track(O, start()).at(-55, 200).walkTo(705, 200, { speed: 5, every: 2 });
    await w.send(user, track.points());
    const firings = (await w.waitFirings(user.user_id, 5)).map((f) => [f.triggered_on, f.date_ts]);
    expect(firings).toEqual([
      ['enter', timeAt(track, [5, 200])],
      ['leave', timeAt(track, [125, 200])],
      ['enter', timeAt(track, [305, 200])],
      ['leave', timeAt(track, [425, 200])],
      ['enter', timeAt(track, [605, 200])],
    ]);
    await waitFor('the callbacks', async () => hook.requests.length >= 5);
    expect(hook.requests.every((r) => r.verifyError === undefined)).toBe(true);
  });
});

async function firstTrigger(w: World, placeId: string): Promise<string> {
  const res = await w.api.get('/1/trigger/list', { token: w.token, query: { place_id: placeId } });
  return res.body.triggers[0].trigger_id;
}
