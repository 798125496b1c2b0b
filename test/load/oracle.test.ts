// The oracle on hand-made tracks: each rule of machines/README.md, one small world at a time.
import { describe, expect, it } from 'vitest';
import { offset } from '../../load-tests/geo.js';
import { UserOracle, type OraclePoint } from '../../load-tests/oracle/simulate.js';
import { localSecondsOfDay, timeGate } from '../../load-tests/oracle/rules.js';
import {
  assembleWorld, defaultLayers, DEFAULT_ZONES, type LayerRole, type PlaceSpec, type TriggerSpec, type UserSpec, type Window,
} from '../../load-tests/world.js';

const ORIGIN = { lat: 45.5, lng: -122.6 };
const T0 = Date.UTC(2024, 5, 3, 12, 0, 0); // a Monday, 12:00 UTC

interface PlaceIn { radius: number; at?: [number, number]; layer?: LayerRole; window?: Window }
interface TriggerIn { place?: number; layer?: LayerRole; on?: 'enter' | 'leave'; after?: number; once?: boolean; window?: Window }

function world(places: PlaceIn[], triggers: TriggerIn[], user: Partial<UserSpec> = {}, rateLimitS = 10) {
  const ps: PlaceSpec[] = places.map((p, i) => {
    const c = offset(ORIGIN, p.at?.[0] ?? i * 2000, p.at?.[1] ?? 0);
    return { index: i, kind: 'enter', key: `p${i}`, name: `p${i}`, lat: c.lat, lng: c.lng, radius: p.radius, layer: p.layer ?? 'default', ...(p.window ? { resolved: p.window } : {}) };
  });
  const ts: TriggerSpec[] = triggers.map((t, i) => ({
    index: i, label: `t${i}`, key: `t${i}`, type: 'callback', on: t.on ?? 'enter', afterS: t.after ?? 0, oneTime: t.once ?? false,
    ...(t.layer ? { layer: t.layer } : { place: t.place ?? 0 }), ...(t.window ? { resolved: t.window } : {}),
  }));
  const users: UserSpec[] = [{ index: 0, key: 'u0', timezone: 'UTC', layers: ['default', 'rate', 'sub'], quiet: false, late: false, jitter: false, ...user }];
  const o = { seed: 1, users: 1, geofences: 0, dwellS: 3, rateLimitS, durationS: 60, quietShare: 0, lateShare: 0, jitterShare: 0, spacingM: 350, runId: 't' };
  return assembleWorld(o, defaultLayers('t', rateLimitS), ps, ts, users, ORIGIN);
}

/** A point `d` metres east of place `p`'s centre at T0 + s seconds, sent and acknowledged at once. */
function at(w: ReturnType<typeof world>, p: number, d: number, s: number, extra: Partial<OraclePoint> = {}): OraclePoint {
  const place = w.places[p];
  const q = offset({ lat: place.lat, lng: place.lng }, d, 0);
  const t = T0 + s * 1000;
  return { t, lat: q.lat, lng: q.lng, acc: 10, sentAt: t, ackAt: t + 5, req: s * 1000, ...extra };
}

function run(w: ReturnType<typeof world>, points: OraclePoint[], observedUntil = T0 + 3_600_000, dwellToleranceMs = 0) {
  const o = new UserOracle(w, w.users[0], { zones: DEFAULT_ZONES, inFlightSlackMs: 5, dwellToleranceMs });
  for (const p of points) o.apply(p);
  o.finish(observedUntil);
  return o;
}

const fired = (o: UserOracle) => o.expected.map((e) => `${e.on}:t${e.trigger}@${(e.tMin - T0) / 1000}`);

describe('zones and hysteresis', () => {
  it('fires enter on the first in-point and not again while inside or in the band', () => {
    const w = world([{ radius: 100 }], [{}]);
    // 99 m in; 110 m is in the band (margin 20 m); 119 m still band; 60 m in again.
    const o = run(w, [at(w, 0, 300, 0), at(w, 0, 99, 1), at(w, 0, 110, 2), at(w, 0, 119, 3), at(w, 0, 60, 4)]);
    expect(fired(o)).toEqual(['enter:t0@1']);
  });

  it('needs the radius plus the margin to leave, then fires leave and allows a new enter', () => {
    const w = world([{ radius: 300 }], [{ on: 'leave' }, {}]);
    // Margin for r = 300 is max(20, 30) = 30 m: 329 m is band, 331 m is out.
    const o = run(w, [at(w, 0, 10, 0), at(w, 0, 329, 1), at(w, 0, 331, 2), at(w, 0, 200, 3)]);
    expect(fired(o)).toEqual(['enter:t1@0', 'leave:t0@2', 'enter:t1@3']);
  });

  it('does not turn boundary jitter into an enter/leave storm', () => {
    const w = world([{ radius: 80 }], [{}, { on: 'leave' }]);
    const pts = Array.from({ length: 40 }, (_, i) => at(w, 0, i % 2 ? 78 : 95, i));
    expect(fired(run(w, pts))).toEqual(['enter:t0@1']);
  });

  it('ignores points whose accuracy is worse than max(100 m, radius)', () => {
    const small = world([{ radius: 50 }], [{}]);
    expect(fired(run(small, [at(small, 0, 0, 0, { acc: 150 })]))).toEqual([]);
    expect(fired(run(small, [at(small, 0, 0, 0, { acc: 100 })]))).toEqual(['enter:t0@0']);
    const big = world([{ radius: 300 }], [{}]);
    expect(fired(run(big, [at(big, 0, 0, 0, { acc: 250 })]))).toEqual(['enter:t0@0']);
    // An unusable far point cannot make an inside user leave either.
    const w = world([{ radius: 50 }], [{ on: 'leave' }]);
    expect(fired(run(w, [at(w, 0, 0, 0), at(w, 0, 500, 1, { acc: 400 })]))).toEqual([]);
  });

  it('applies points in order: an older point, or the last applied sent again, moves nothing', () => {
    const w = world([{ radius: 100 }], [{}]);
    const o = run(w, [at(w, 0, 500, 5), at(w, 0, 0, 4), at(w, 0, 500, 5)]);
    expect(fired(o)).toEqual([]);
    expect(o.staleIgnored).toBe(2);
  });

  it('applies a point as old as the last applied but elsewhere', () => {
    const w = world([{ radius: 100 }], [{}]);
    expect(fired(run(w, [at(w, 0, 500, 5), at(w, 0, 0, 5)]))).toEqual(['enter:t0@5']);
  });

  it('evaluates only the layers the user belongs to', () => {
    const w = world([{ radius: 100, layer: 'multi' }, { radius: 100, layer: 'sub' }], [{ place: 0 }, { place: 1 }]);
    const o = run(w, [at(w, 0, 0, 0), at(w, 1, 0, 1)]);
    expect(fired(o)).toEqual(['enter:t1@1']);
  });
});

describe('dwell', () => {
  it('fires by the clock at the deadline when the phone says nothing more', () => {
    const w = world([{ radius: 100 }], [{ after: 3 }]);
    const o = run(w, [at(w, 0, 0, 0), at(w, 0, 10, 1)]);
    expect(o.expected).toHaveLength(1);
    expect(o.expected[0]).toMatchObject({ tMin: T0 + 3000, tMax: T0 + 3000, cause: 'clock', delayS: 3 });
  });

  it('accepts the deadline or the next in-point as the firing time, and fires once a visit', () => {
    const w = world([{ radius: 100 }], [{ after: 3 }]);
    const o = run(w, [at(w, 0, 0, 0), at(w, 0, 0, 5), at(w, 0, 0, 9), at(w, 0, 500, 10), at(w, 0, 0, 11)]);
    expect(o.expected.map((e) => [(e.tMin - T0) / 1000, (e.tMax - T0) / 1000])).toEqual([[3, 5], [14, 14]]);
  });

  it('is cancelled by leaving before the deadline', () => {
    const w = world([{ radius: 100 }], [{ after: 3 }]);
    const o = run(w, [at(w, 0, 0, 0, { req: 1 }), at(w, 0, 500, 2, { req: 1 })]);
    expect(fired(o)).toEqual([]);
    expect(o.ambiguities).toEqual([]);
  });

  it('fires a dwell whose deadline passed before the out-point, then the leave', () => {
    const w = world([{ radius: 100 }], [{ after: 3 }, { on: 'leave' }]);
    const o = run(w, [at(w, 0, 0, 0), at(w, 0, 500, 4)]);
    expect(fired(o)).toEqual(['enter:t0@3', 'leave:t1@4']);
  });

  it('marks the pair ambiguous when the cancelling point reached the server after the deadline', () => {
    const w = world([{ radius: 100 }], [{ after: 3 }]);
    // The out-point (t = 2 s) came in a later request acknowledged at 3.5 s: the clock may have won.
    const o = run(w, [at(w, 0, 0, 0, { req: 1 }), at(w, 0, 500, 2, { req: 2, sentAt: T0 + 3400, ackAt: T0 + 3500 })]);
    expect(fired(o)).toEqual([]);
    expect(o.ambiguities).toEqual([expect.objectContaining({ trigger: 0, place: 0, from: T0 + 3000 })]);
  });

  it('is cancelled by a late out-point older than the deadline that reached the server within the tolerance', () => {
    const w = world([{ radius: 100 }], [{ after: 3 }]);
    // The out-point (t = 2 s) came at 4.5 s, past the deadline (3 s) but within its 2 s tolerance.
    const o = run(w, [at(w, 0, 0, 0, { req: 1 }), at(w, 0, 500, 2, { req: 2, sentAt: T0 + 4400, ackAt: T0 + 4500 })], undefined, 2000);
    expect(fired(o)).toEqual([]);
    expect(o.ambiguities).toEqual([]);
    // Past the tolerance the server's clock may have fired it first.
    const late = run(w, [at(w, 0, 0, 0, { req: 1 }), at(w, 0, 500, 2, { req: 2, sentAt: T0 + 5400, ackAt: T0 + 5500 })], undefined, 2000);
    expect(late.ambiguities).toEqual([expect.objectContaining({ trigger: 0, place: 0, from: T0 + 3000 })]);
  });

  it('expects a clock-fired dwell from the end of its tolerance, dated at the deadline', () => {
    const w = world([{ radius: 100 }], [{ after: 3 }]);
    const o = run(w, [at(w, 0, 0, 0)], T0 + 6000, 2000);
    expect(o.expected.map((e) => [(e.tMin - T0) / 1000, e.cause, (e.causeAt - T0) / 1000])).toEqual([[3, 'clock', 5]]);
    // Observed until within the tolerance: the server may not have fired it yet.
    const early = run(w, [at(w, 0, 0, 0)], T0 + 4500, 2000);
    expect(fired(early)).toEqual([]);
    expect(early.ambiguities).toHaveLength(1);
  });

  it('expects no clock-fired dwell before the grace after the service started', () => {
    const w = world([{ radius: 100 }], [{ after: 3 }]);
    const o = new UserOracle(w, w.users[0], { zones: DEFAULT_ZONES, inFlightSlackMs: 5, dwellToleranceMs: 1000, serviceStart: { at: T0 - 1000, graceMs: 10_000 } });
    o.apply(at(w, 0, 0, 0));
    // The deadline (3 s) plus the tolerance is 4 s, but the service holds its clock until 9 s.
    o.tick(T0 + 8_999);
    expect(fired(o)).toEqual([]);
    o.tick(T0 + 9_000);
    expect(o.expected.map((e) => [(e.tMin - T0) / 1000, e.cause, (e.causeAt - T0) / 1000])).toEqual([[3, 'clock', 9]]);
  });

  it('does not judge a deadline after the end of observation', () => {
    const w = world([{ radius: 100 }], [{ after: 3 }]);
    const o = run(w, [at(w, 0, 0, 0)], T0 + 2000);
    expect(fired(o)).toEqual([]);
    expect(o.ambiguities).toHaveLength(1);
  });
});

describe('one-time, windows and rate limits', () => {
  it('fires a one-time trigger once per pair, for good', () => {
    const w = world([{ radius: 100 }], [{ once: true }, { on: 'leave', once: true }]);
    const o = run(w, [at(w, 0, 0, 0), at(w, 0, 500, 1), at(w, 0, 0, 2), at(w, 0, 500, 3)]);
    expect(fired(o)).toEqual(['enter:t0@0', 'leave:t1@1']);
  });

  it('gates by the date window, inclusive, and a gated one-time firing is not consumed', () => {
    const w = world([{ radius: 100 }], [{ once: true, window: { dateFrom: T0 + 2000 } }, { window: { dateTo: T0 + 2000 } }]);
    const o = run(w, [at(w, 0, 0, 0), at(w, 0, 500, 1), at(w, 0, 0, 2), at(w, 0, 500, 3), at(w, 0, 0, 4)]);
    expect(fired(o)).toEqual(['enter:t1@0', 'enter:t0@2', 'enter:t1@2']);
    expect(o.gated.get('trigger window')).toBe(2);
  });

  it('gates by the place window too', () => {
    const w = world([{ radius: 100, window: { dateTo: T0 - 1000 } }], [{}]);
    expect(fired(run(w, [at(w, 0, 0, 0)]))).toEqual([]);
  });

  it('reads the daily window in the user timezone, wrapping over midnight', () => {
    // 12:00 UTC is 21:00 in Tokyo.
    const morning = { timeFrom: '11:00:00', timeTo: '13:00:00' };
    const night = { timeFrom: '20:00:00', timeTo: '02:00:00' };
    const w = (tz: string) => world([{ radius: 100 }], [{ window: morning }, { window: night }], { timezone: tz });
    const utc = w('UTC');
    expect(fired(run(utc, [at(utc, 0, 0, 0)]))).toEqual(['enter:t0@0']);
    const tokyo = w('Asia/Tokyo');
    expect(fired(run(tokyo, [at(tokyo, 0, 0, 0)]))).toEqual(['enter:t1@0']);
    expect(localSecondsOfDay(T0, 'Asia/Kolkata')).toBe(17.5 * 3600);
    expect(timeGate(T0, 'UTC', '00:00:00', '00:00:00')).toBe('open');
    expect(timeGate(T0 + 500, 'UTC', '12:00:00', '13:00:00')).toBe('unknown');
  });

  it('spaces firings of one trigger for one user across the places of a rate-limited layer', () => {
    const w = world([{ radius: 100, layer: 'rate' }, { radius: 100, layer: 'rate' }], [{ layer: 'rate' }], {}, 10);
    const o = run(w, [at(w, 0, 0, 0), at(w, 1, 0, 5), at(w, 1, 500, 6), at(w, 1, 0, 10), at(w, 0, 500, 11), at(w, 0, 0, 12)]);
    // Place 1 at 5 s is gated (5 s < 10 s); at 10 s it fires; place 0 again at 12 s is gated.
    expect(fired(o)).toEqual(['enter:t0@0', 'enter:t0@10']);
    expect(o.gated.get('rate limit')).toBe(2);
  });

  it('does not judge two places of a rate-limited trigger entered at the same instant', () => {
    const w = world([{ radius: 100, layer: 'rate', at: [0, 0] }, { radius: 100, layer: 'rate', at: [50, 0] }], [{ layer: 'rate' }]);
    const o = run(w, [at(w, 0, 25, 0)]);
    expect(o.ambiguities.some((a) => a.place === null)).toBe(true);
  });
});
