// Recording the timeline changes nothing the engine decides: on random tracks over random
// geofences, a shard that records gives exactly the effects and record changes of one that does
// not; every firing and gated firing it made is in its timeline, in order. Spent one-time pairs
// crossed again: one gated firing in history and timeline alike, across the band too.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { destinationPoint } from '../../src/geo/distance.js';
import { fenceKey, type Geofence, type PointInput, type ShardOutput } from '../../workers/protocol.js';
import { ShardState } from '../../workers/shard-state.js';

const C = { lat: 45.52, lon: -122.68 };
const T0 = Date.UTC(2026, 0, 5, 12);

const fenceArb = (i: number) =>
  fc.record({
    east: fc.integer({ min: -300, max: 300 }),
    radius: fc.integer({ min: 30, max: 200 }),
    triggerOn: fc.constantFrom('enter' as const, 'leave' as const),
    triggerAfterS: fc.constantFrom(0, 0, 20),
    oneTime: fc.boolean(),
    rateLimitS: fc.constantFrom(0, 0, 60),
    closed: fc.constantFrom(false, false, true),
  }).map((r): Geofence => {
    const p = destinationPoint(C.lat, C.lon, 90, r.east);
    const triggerId = `t${i}`;
    const placeId = `p${i}`;
    return {
      key: fenceKey(triggerId, placeId), triggerId, placeId, layerId: 'L1', lat: p.lat, lon: p.lon, radius: r.radius,
      triggerOn: r.triggerOn, triggerAfterS: r.triggerOn === 'enter' ? r.triggerAfterS : 0, oneTime: r.oneTime, rateLimitS: r.rateLimitS,
      window: r.closed ? { dateTo: T0 - 1 } : null,
      ...(r.closed ? { triggerTo: T0 - 1 } : {}),
    };
  });

const stepArb = fc.record({ east: fc.integer({ min: -600, max: 600 }), dt: fc.integer({ min: -5, max: 30 }), acc: fc.constantFrom(5, 5, 5, 400) });

describe('the timeline recorder', () => {
  it('leaves effects and changes as they are, and records every firing and gated firing', () => {
    fc.assert(
      fc.property(fc.tuple(fenceArb(0), fenceArb(1), fenceArb(2)), fc.array(stepArb, { minLength: 1, maxLength: 60 }), (fences, steps) => {
        const make = (timeline: boolean) => {
          const s = new ShardState({ timeline });
          s.load({ fences, users: [{ userId: 'u', layers: ['L1'] }] });
          return s;
        };
        const plain = make(false);
        const recording = make(true);
        let at = T0;
        const outs: Array<[ShardOutput, ShardOutput]> = [];
        for (const st of steps) {
          at += st.dt * 1000;
          const p = destinationPoint(C.lat, C.lon, 90, st.east);
          const point: PointInput = { userId: 'u', at, lat: p.lat, lon: p.lon, acc: st.acc };
          outs.push([plain.applyPoints([point]), recording.applyPoints([point])]);
        }
        outs.push([plain.tick(at + 3_600_000), recording.tick(at + 3_600_000)]);
        for (const [a, b] of outs) {
          expect(b.effects).toEqual(a.effects);
          expect(b.changes).toEqual(a.changes);
          expect(a.timeline).toBeUndefined();
          const fired = b.effects.filter((e) => e.type === 'FIRE').map((e) => `${e.triggerId}@${e.at}`);
          expect((b.timeline ?? []).filter((t) => t.kind === 'fired').map((t) => `${t.triggerId}@${t.at}`)).toEqual(fired);
          // Every gated firing, one_time_spent included: history and timeline come from one decision
          // (the timeline tells the machine's date_window apart as trigger_inactive for the trigger's own dates).
          const gated = b.effects.filter((e) => e.type === 'SUPPRESSED').map((e) => `${e.triggerId}:${e.reason}@${e.at}`);
          expect((b.timeline ?? []).filter((t) => t.kind === 'gated').map((t) => `${t.triggerId}:${t.gate === 'trigger_inactive' ? 'date_window' : t.gate}@${t.at}`)).toEqual(gated);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('spent one-time pairs', () => {
  const once = (over: Partial<Geofence> = {}): Geofence => ({
    key: fenceKey('t', 'p'), triggerId: 't', placeId: 'p', layerId: 'L1', lat: C.lat, lon: C.lon, radius: 100,
    triggerOn: 'enter', triggerAfterS: 0, oneTime: true, rateLimitS: 0, window: null, ...over,
  });
  // Metres east of the centre of a 100 m place: in, in the band (leave margin 20 m), out; and at
  // the centre with an accuracy too poor to count.
  const IN = { east: 50 };
  const BAND = { east: 110 };
  const OUT = { east: 500 };
  const POOR = { east: 0, acc: 400 };
  /** A track through one spent-able pair, on a shard with and without a timeline: what history and timeline got. */
  const walk = (f: Geofence, track: Array<{ east: number; acc?: number }>) => {
    const run = (timeline: boolean) => {
      const s = new ShardState({ timeline });
      s.load({ fences: [f], users: [{ userId: 'u', layers: ['L1'] }] });
      const out: ShardOutput = { effects: [], changes: [] };
      track.forEach((st, i) => {
        const p = destinationPoint(C.lat, C.lon, 90, st.east);
        const o = s.applyPoints([{ userId: 'u', at: T0 + (i + 1) * 60_000, lat: p.lat, lon: p.lon, acc: st.acc ?? 5 }]);
        out.effects.push(...o.effects);
        (out.timeline ??= []).push(...(o.timeline ?? []));
      });
      return out;
    };
    const plain = run(false);
    const recording = run(true);
    expect(recording.effects).toEqual(plain.effects);
    const minute = (at: number) => (at - T0) / 60_000;
    return {
      history: plain.effects.filter((e) => e.type !== 'VISIT').map((e) => `${e.type === 'FIRE' ? 'fired' : e.reason}@${minute(e.at)}`),
      timeline: recording.timeline!.filter((t) => t.kind === 'fired' || t.kind === 'gated').map((t) => `${t.gate ?? 'fired'}@${minute(t.at)}`),
    };
  };

  it('out → band → in is an entry: one one_time_spent in history and timeline', () => {
    const seen = walk(once(), [IN, OUT, BAND, IN]);
    expect(seen.history).toEqual(['fired@1', 'one_time_spent@4']);
    expect(seen.timeline).toEqual(seen.history);
  });

  it('in → band → in, or an unusable point inside, is the same visit: nothing', () => {
    expect(walk(once(), [IN, BAND, IN, POOR, IN]).history).toEqual(['fired@1']);
  });

  it('an unusable point between out and in does not hide the entry', () => {
    const seen = walk(once(), [IN, OUT, POOR, IN]);
    expect(seen.history).toEqual(['fired@1', 'one_time_spent@4']);
    expect(seen.timeline).toEqual(seen.history);
  });

  it('a leave trigger left again through the band: one one_time_spent', () => {
    const seen = walk(once({ triggerOn: 'leave' }), [IN, OUT, IN, BAND, OUT, BAND, OUT]);
    expect(seen.history).toEqual(['fired@2', 'one_time_spent@5']);
    expect(seen.timeline).toEqual(seen.history);
  });

  it('a dwell trigger entered again: gated at the entry, with its dwell seconds', () => {
    const f = once({ triggerAfterS: 30 });
    const seen = walk(f, [IN, IN, OUT, IN]);
    expect(seen.history).toEqual(['fired@1.5', 'one_time_spent@4']);
    expect(seen.timeline).toEqual(seen.history);
  });

  it('after a restart, a user whose last point was inside the spent pair is still inside it', () => {
    const p = destinationPoint(C.lat, C.lon, 90, IN.east);
    const s = new ShardState();
    s.load({
      fences: [once()],
      users: [{ userId: 'u', layers: ['L1'], lastAt: T0, lastPoint: { lat: p.lat, lon: p.lon, acc: 5 } }],
      records: [{ userId: 'u', triggerId: 't', placeId: 'p', record: { state: 'firedOnce', since: T0 - 1, enteredAt: T0 - 1, history: [] } }],
    });
    const at = (i: number, east: number) => ({ userId: 'u', at: T0 + i * 60_000, ...destinationPoint(C.lat, C.lon, 90, east), acc: 5 });
    expect(s.applyPoints([at(1, IN.east)]).effects).toEqual([]);
    expect(s.applyPoints([at(2, OUT.east), at(3, IN.east)]).effects).toMatchObject([{ type: 'SUPPRESSED', reason: 'one_time_spent', at: T0 + 3 * 60_000 }]);
  });
});
