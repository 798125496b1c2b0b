// The fast path `step` must be indistinguishable from running every event through the XState
// machine: same records, same effects, same transitions, on random tracks and random rules.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  effectsFromActions,
  geofenceMachine,
  needsMachine,
  recordFromSnapshot,
  runMachine,
  step,
  type FenceRule,
  type GateInputs,
  type MachineEvent,
  type PairEvent,
  type PairRecord,
  type StepEvent,
  type WindowVerdict,
  type Zone,
} from '../../machines/index.js';
import { initialTransition, transition } from 'xstate';

const ruleArb: fc.Arbitrary<FenceRule> = fc.record({
  triggerId: fc.constant('t'),
  placeId: fc.constant('p'),
  triggerOn: fc.constantFrom('enter' as const, 'leave' as const),
  triggerAfterS: fc.constantFrom(0, 0, 5, 30, 60),
  oneTime: fc.boolean(),
  rateLimitS: fc.constantFrom(0, 0, 20, 90),
});

const eventArb = fc.record({
  // Whole multiples of the dwell lengths make events land exactly on deadlines, the edge that matters.
  dt: fc.oneof(fc.integer({ min: 0, max: 40_000 }), fc.constantFrom(0, 1_000, 5_000, 10_000, 30_000)),
  kind: fc.constantFrom('in', 'in', 'out', 'out', 'band', 'unusable', 'tick'),
  window: fc.constantFrom<WindowVerdict>(null, null, null, 'date_window', 'time_window'),
});

function toStep(at: number, kind: string): StepEvent {
  return kind === 'tick' ? { type: 'TICK', at } : { type: 'POINT', at, zone: kind as 'in' | 'out' | 'band' | 'unusable' };
}

describe('step ≡ XState machine', () => {
  it('gives the same records, effects and transitions on random tracks', () => {
    fc.assert(
      fc.property(ruleArb, fc.array(eventArb, { maxLength: 60 }), (rule, events) => {
        // Reference: one live snapshot, every event through transition().
        let snap = initialTransition(geofenceMachine, { rule })[0];
        let refLastFired: number | null = null;
        // Fast path: records only.
        let rec: PairRecord | undefined;
        let fastLastFired: number | null = null;
        let at = 1_000_000;
        for (const e of events) {
          at += e.dt;
          const ev = toStep(at, e.kind);
          const refGate: GateInputs = { window: e.window, lastFiredAt: refLastFired };
          // The reference goes through xstate's own public transition(), not our cached-scope runner.
          const [next, actions] = transition(geofenceMachine, snap, { ...ev, ...refGate });
          const ref = {
            effects: effectsFromActions(actions),
            transition: next.context.last !== snap.context.last ? (next.context.last ?? undefined) : undefined,
          };
          snap = next;
          for (const f of ref.effects) if (f.type === 'FIRE') refLastFired = f.at;

          const predicted = needsMachine(rec, ev);
          const res = step(rec, rule, ev, () => ({ window: e.window, lastFiredAt: fastLastFired }));
          for (const f of res.effects) if (f.type === 'FIRE') fastLastFired = f.at;

          expect(predicted).toBe(ref.transition !== undefined);
          if (!predicted) expect(res.record).toBe(rec);
          rec = res.record;
          expect(rec).toEqual(recordFromSnapshot(snap));
          expect(res.effects).toEqual(ref.effects);
          expect(res.transition).toEqual(ref.transition);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('restoring a record mid-track continues exactly where the live machine is', () => {
    fc.assert(
      fc.property(ruleArb, fc.array(eventArb, { maxLength: 40 }), (rule, events) => {
        let snap = initialTransition(geofenceMachine, { rule })[0];
        let rec: PairRecord | undefined;
        let at = 0;
        for (const e of events) {
          at += e.dt;
          const ev = toStep(at, e.kind);
          snap = runMachine(snap, { ...ev, window: e.window, lastFiredAt: null }).snapshot;
          // Round-trip the record through structured clone, as persistence and threads do.
          const restored = rec === undefined ? undefined : structuredClone(rec);
          rec = step(restored, rule, ev, () => ({ window: e.window, lastFiredAt: null })).record;
          expect(rec).toEqual(recordFromSnapshot(snap));
        }
      }),
      { numRuns: 200 },
    );
  });

  // The host's events (rule and membership changes) among points and ticks: a pair that a RELEASE,
  // LEAVE_LAYER or FORGET moves is changed without a transition being taken for LEAVE_LAYER and
  // FORGET, so here `needsMachine` must say whether the state or the last transition changed.
  const hostEventArb = fc.oneof(
    fc.record({ type: fc.constant('RELEASE' as const), zone: fc.constantFrom<Zone | null>('in', 'out', 'band', 'unusable', null), onLayer: fc.boolean() }),
    fc.record({ type: fc.constantFrom('LEAVE_LAYER' as const, 'FORGET' as const) }),
  );
  const mixedArb = fc.record({
    dt: eventArb.map((e) => e.dt),
    window: eventArb.map((e) => e.window),
    what: fc.oneof({ weight: 3, arbitrary: eventArb.map((e) => e.kind) }, { weight: 1, arbitrary: hostEventArb }),
  });

  it('with releases, layer leaves and forgets among the points: the same records, effects and transitions', () => {
    fc.assert(
      fc.property(ruleArb, fc.array(mixedArb, { maxLength: 60 }), (rule, events) => {
        let snap = initialTransition(geofenceMachine, { rule })[0];
        let refLastFired: number | null = null;
        let rec: PairRecord | undefined;
        let fastLastFired: number | null = null;
        let at = 1_000_000;
        for (const e of events) {
          at += e.dt;
          const ev: PairEvent = typeof e.what === 'string' ? toStep(at, e.what) : { ...e.what, at };
          const refEvent: MachineEvent =
            ev.type === 'POINT' || ev.type === 'TICK' ? { ...ev, window: e.window, lastFiredAt: refLastFired } : ev;
          const [next, actions] = transition(geofenceMachine, snap, refEvent);
          const changed = next.value !== snap.value || next.context.last !== snap.context.last;
          const refTransition = next.context.last !== snap.context.last ? (next.context.last ?? undefined) : undefined;
          const refEffects = effectsFromActions(actions);
          snap = next;
          for (const f of refEffects) if (f.type === 'FIRE') refLastFired = f.at;

          const predicted = needsMachine(rec, ev);
          // Round-trip the record as persistence and threads do.
          const res = step(rec === undefined ? undefined : structuredClone(rec), rule, ev, () => ({ window: e.window, lastFiredAt: fastLastFired }));
          for (const f of res.effects) if (f.type === 'FIRE') fastLastFired = f.at;

          expect(predicted).toBe(changed);
          if (ev.type !== 'POINT' && ev.type !== 'TICK') expect(res.effects).toEqual([]);
          rec = res.record;
          expect(rec).toEqual(recordFromSnapshot(snap));
          expect(res.effects).toEqual(refEffects);
          expect(res.transition).toEqual(refTransition);
        }
      }),
      { numRuns: 400 },
    );
  });
});
