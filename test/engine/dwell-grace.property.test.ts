// The dwell clock as a property (machines/README.md "Order and time"): a track's outcome does not
// depend on when its points reach the service, as long as each arrives before the clock may fire a
// deadline after it (src/engine/dwell-clock.ts: within the tolerance of its device time while the
// service runs, within the grace of the first start after it otherwise) and after the user's
// earlier points. The "live" side runs a real ShardState the way the host drives it: points applied
// when they arrive, ticks at random wall-clock times limited by tickCutoff over the starts kept as
// the host keeps them, and restarts from the persisted changes while the phone's points wait,
// possibly more often than the grace. The reference applies the whole track at once and lets every
// deadline fire.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { destinationPoint } from '../../src/geo/distance.js';
import { clockFiresAt, keptStarts, tickCutoff, type DwellClock } from '../../src/engine/dwell-clock.js';
import { fenceKey, type Geofence, type PointInput, type RecordSeed, type ShardEffect, type ShardOutput } from '../../workers/protocol.js';
import { ShardState } from '../../workers/shard-state.js';

const C = { lat: 45.52, lon: -122.68 };
const T0 = 1_700_000_000_000;
const USER = 'u1';

function fence(triggerId: string, over: Partial<Geofence>): Geofence {
  return {
    key: fenceKey(triggerId, 'p1'), triggerId, placeId: 'p1', layerId: 'L1', lat: C.lat, lon: C.lon, radius: 100,
    triggerOn: 'enter', triggerAfterS: 0, oneTime: false, rateLimitS: 0, window: null, ...over,
  };
}

/** in (0, 60 m), band (110 m), out (300 m) for a 100 m place. */
const DISTANCES = [0, 60, 110, 300] as const;

const trackArb = fc.record({
  dwellS: fc.integer({ min: 1, max: 3 }),
  oneTime: fc.boolean(),
  rateLimitS: fc.constantFrom(0, 5),
  graceMs: fc.constantFrom(300, 1_000, 3_000),
  toleranceMs: fc.constantFrom(0, 100, 1_000),
  // Late points are the interesting ones: half of them come towards the end of their tolerance.
  points: fc.array(fc.record({ gapMs: fc.integer({ min: 1, max: 1_500 }), d: fc.constantFrom(...DISTANCES), delay: lateness() }), { minLength: 1, maxLength: 12 }),
  /** The host's clock: a tick every `tickMs` of wall time (offset by `tickPhase`), as its poll does. */
  tickMs: fc.integer({ min: 20, max: 1_000 }),
  tickPhase: fc.integer({ min: 0, max: 1_999 }),
  /** Service outages [down, down + length), each `gap` after the previous start (or the track's). */
  outages: fc.array(fc.record({ gap: fc.integer({ min: 1, max: 8_000 }), length: fc.integer({ min: 1, max: 8_000 }), delay: lateness() }), { maxLength: 3 }),
});

/** Where in its tolerance (or its grace, for a point resent after an outage) a point arrives, as a share of it. */
function lateness() {
  return fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.999, noNaN: true }), fc.double({ min: 0.8, max: 0.999, noNaN: true }));
}
type Track = typeof trackArb extends fc.Arbitrary<infer T> ? T : never;

function fencesOf(tr: Track): Geofence[] {
  return [
    fence('dwell', { triggerAfterS: tr.dwellS, oneTime: tr.oneTime, rateLimitS: tr.rateLimitS }),
    fence('enter', { rateLimitS: tr.rateLimitS }),
    fence('leave', { triggerOn: 'leave' }),
  ];
}

function pointsOf(tr: Track): Array<PointInput & { delay: number }> {
  let t = T0;
  return tr.points.map((p) => {
    t += p.gapMs;
    const q = destinationPoint(C.lat, C.lon, 90, p.d);
    return { userId: USER, at: t, lat: q.lat, lon: q.lon, acc: 5, delay: p.delay };
  });
}

/** What a user relies on: every firing (or gated firing) and visit with its time, and the records left. */
function outcome(effects: ShardEffect[], s: ShardState) {
  return {
    effects: effects.map(({ point: _point, ...e }) => e),
    records: [...s.records()].sort((a, b) => a.triggerId.localeCompare(b.triggerId)),
  };
}

function reference(tr: Track) {
  const s = new ShardState();
  s.load({ fences: fencesOf(tr), users: [{ userId: USER, layers: ['L1'] }] });
  const effects = [...s.applyPoints(pointsOf(tr)).effects, ...s.tick(Infinity).effects];
  return outcome(effects, s);
}

/** The changes a host persists, enough to seed a shard after a restart. */
class Persisted {
  records = new Map<string, RecordSeed>();
  lastFired = new Map<string, number>();
  last: PointInput | undefined;
  apply(o: ShardOutput, points: readonly PointInput[] = []): void {
    for (const c of o.changes) {
      if (c.record === null) this.records.delete(c.triggerId);
      else this.records.set(c.triggerId, { userId: c.userId, triggerId: c.triggerId, placeId: c.placeId, record: c.record });
    }
    for (const e of o.effects) if (e.type === 'FIRE') this.lastFired.set(e.triggerId, e.at);
    for (const p of points) if (this.last === undefined || p.at > this.last.at) this.last = p;
  }
}

/** The outages of the track: [down, up), in order. */
function outagesOf(tr: Track): Array<{ down: number; up: number; delay: number }> {
  let at = T0;
  return tr.outages.map((o) => {
    const down = at + o.gap;
    at = down + o.length;
    return { down, up: at, delay: o.delay };
  });
}

/**
 * When each point reaches the service: within the tolerance of its device time; one that would come
 * while the service is down is resent within the grace after it is back; never before the user's
 * earlier points. Undefined when that arrival comes after the clock may already fire a deadline
 * after the point (a phone that could not reach the service in time): the property does not cover it.
 */
function arrivalsOf(tr: Track, points: ReadonlyArray<PointInput & { delay: number }>): number[] | undefined {
  const outages = outagesOf(tr);
  const startsUpTo = (at: number) => [T0 - 1, ...outages.filter((o) => o.up <= at).map((o) => o.up)];
  const place = (a: number) => {
    for (const o of outages) if (a >= o.down && a < o.up) a = o.up + o.delay * tr.graceMs;
    return a;
  };
  let prev = -Infinity;
  const arrivals: number[] = [];
  for (const p of points) {
    const a = place(Math.max(prev, place(p.at + p.delay * tr.toleranceMs)));
    // The clock as the service has it then: the starts so far, kept as the host keeps them.
    const starts = startsUpTo(a).reduce<number[]>((kept, start) => keptStarts(kept, start, tr.graceMs), []);
    if (a >= clockFiresAt(p.at, { starts, graceMs: tr.graceMs, toleranceMs: tr.toleranceMs })) return undefined;
    arrivals.push(a);
    prev = a;
  }
  return arrivals;
}

function live(tr: Track, arrivals: readonly number[]) {
  const points = pointsOf(tr);
  const outages = outagesOf(tr);
  type Ev = { at: number; kind: 'points'; points: PointInput[] } | { at: number; kind: 'down' } | { at: number; kind: 'up' };
  const events: Ev[] = [];
  points.forEach((p, i) => {
    const last = events.at(-1);
    const { delay: _delay, ...input } = p;
    if (last?.kind === 'points' && last.at === arrivals[i]) last.points.push(input);
    else events.push({ at: arrivals[i]!, kind: 'points', points: [input] });
  });
  for (const o of outages) events.push({ at: o.down, kind: 'down' }, { at: o.up, kind: 'up' });
  // Stable: at equal times, the order above (points first); the clock's ticks come after them.
  const rank = { down: 0, up: 1, points: 2 } as const;
  events.sort((a, b) => a.at - b.at || rank[a.kind] - rank[b.kind]);
  const end = Math.max(arrivals.at(-1) ?? 0, outages.at(-1)?.up ?? 0) + 10_000 + tr.graceMs + tr.toleranceMs;

  const fences = fencesOf(tr);
  const store = new Persisted();
  let s: ShardState | null = new ShardState();
  const clock: DwellClock = { starts: keptStarts([], T0 - 1, tr.graceMs), graceMs: tr.graceMs, toleranceMs: tr.toleranceMs };
  store.apply(s.load({ fences, users: [{ userId: USER, layers: ['L1'] }] }));
  const effects: ShardEffect[] = [];
  const take = (o: ShardOutput, pts: readonly PointInput[] = []) => {
    store.apply(o, pts);
    for (const e of o.effects) effects.push(e);
  };
  // The host's clock ticks every `tickMs` of wall time while the service is up. A tick with nothing
  // due changes nothing, so only those that fire run: the first tick at or after the time the clock
  // may fire the earliest deadline (clockFiresAt), again and again, before `until`.
  const phase = T0 + (tr.tickPhase % tr.tickMs);
  const tickAtOrAfter = (t: number) => phase + Math.max(0, Math.ceil((t - phase) / tr.tickMs)) * tr.tickMs;
  let from = T0;
  const ticksBefore = (until: number) => {
    for (;;) {
      if (s === null) return;
      const at = tickAtOrAfter(Math.max(from, clockFiresAt(s.nextDeadline, clock)));
      if (!(at < until)) return;
      take(s.tick(tickCutoff(at, clock)));
      from = at + 1;
    }
  };
  for (const ev of events) {
    ticksBefore(ev.at);
    from = Math.max(from, ev.at);
    if (ev.kind === 'down') s = null;
    else if (ev.kind === 'up') {
      s = new ShardState();
      const last = store.last;
      take(s.load({
        fences,
        users: [{ userId: USER, layers: ['L1'], ...(last ? { lastAt: last.at, lastPoint: { lat: last.lat, lon: last.lon, acc: last.acc ?? 0 } } : {}) }],
        records: [...store.records.values()],
        lastFired: [...store.lastFired].map(([triggerId, at]) => ({ userId: USER, triggerId, at })),
      }));
      clock.starts = keptStarts(clock.starts, ev.at, tr.graceMs);
    } else {
      // Points never arrive while the service is down: they were moved past the outage.
      expect(s).not.toBeNull();
      take(s!.applyPoints(ev.points), ev.points);
    }
  }
  ticksBefore(end);
  // And a last tick at the end, when every deadline may fire.
  take(s!.tick(tickCutoff(end, clock)));
  return outcome(effects, s!);
}

describe('dwell grace', () => {
  it('a track fires the same, dated the same, whenever its points arrive in time (restarts or not)', () => {
    fc.assert(
      fc.property(trackArb, (tr) => {
        const arrivals = arrivalsOf(tr, pointsOf(tr));
        fc.pre(arrivals !== undefined);
        const got = live(tr, arrivals!);
        const want = reference(tr);
        if (tr.outages.length === 0) {
          expect(got).toEqual(want);
          return;
        }
        // Which spent one-time pairs the user was inside of is not persisted: after a restart a
        // re-entry may go unrecorded (workers/spent-pairs.ts), never one the reference lacks.
        const spent = (o: typeof got) => o.effects.filter((e) => e.type === 'SUPPRESSED' && e.reason === 'one_time_spent');
        const rest = (o: typeof got) => ({ ...o, effects: o.effects.filter((e) => !(e.type === 'SUPPRESSED' && e.reason === 'one_time_spent')) });
        expect(rest(got)).toEqual(rest(want));
        const wanted = spent(want).map((e) => JSON.stringify(e));
        let k = 0;
        for (const e of spent(got).map((x) => JSON.stringify(x))) {
          while (k < wanted.length && wanted[k] !== e) k++;
          expect(k, `unexpected gated firing ${e}`).toBeLessThan(wanted.length);
          k++;
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it('tickCutoff lets a deadline fire exactly from clockFiresAt, and never before its tolerance or the grace of a start after it', () => {
    const startsArb = fc.uniqueArray(fc.integer({ min: 0, max: 1e6 }), { minLength: 1, maxLength: 5 }).map((a) => a.sort((x, y) => x - y));
    fc.assert(
      fc.property(startsArb, fc.integer({ min: 0, max: 1e5 }), fc.integer({ min: 0, max: 1e5 }), fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 0, max: 2e6 }), (starts, graceMs, toleranceMs, d, later) => {
        const clock = { starts, graceMs, toleranceMs };
        const now = starts.at(-1)! + later;
        const firesAt = clockFiresAt(d, clock);
        expect(d <= tickCutoff(now, clock)).toBe(now >= firesAt);
        expect(firesAt).toBeGreaterThanOrEqual(d + Math.min(toleranceMs, graceMs));
        const firstAfter = starts.find((s) => s > d);
        if (firstAfter !== undefined) expect(firesAt).toBe(firstAfter + graceMs);
        else expect(firesAt).toBe(Math.max(d + toleranceMs, starts.at(-1)! + graceMs));
      }),
    );
  });

  it('keeps the starts a deadline may still wait for, and the last one whose grace has passed', () => {
    expect(keptStarts([], 1_000, 300)).toEqual([1_000]);
    // 100 and 400 are past their grace at 1 000: only the later of them matters.
    expect(keptStarts([100, 400, 800], 1_000, 300)).toEqual([400, 800, 1_000]);
    // A clock set back: starts after the new one are dropped.
    expect(keptStarts([100, 5_000], 1_000, 300)).toEqual([100, 1_000]);
  });
});
