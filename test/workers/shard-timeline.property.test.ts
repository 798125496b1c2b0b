// Recording the timeline changes nothing the engine decides: on random tracks over random
// geofences, a shard that records gives exactly the effects and record changes of one that does
// not; every firing and gated firing it made is in its timeline, in order.
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
