// One pure step of the geofence machine, and the conversion between its snapshots and the compact
// persisted records. Nothing here runs an actor: effects come back as data.
import { createActor, type AnyActorScope } from 'xstate';
import { geofenceMachine, type GeofenceSnapshot } from './geofence-machine.js';
import { emptyContext, NO_RULE, type FireParams, type SuppressParams, type VisitParams } from './machine-parts.js';
import type { Effect, FenceRule, MachineEvent, MachineState, PairRecord, Transition } from './types.js';

/** Rebuild a snapshot from a persisted record (or the outside state when there is none). */
export function snapshotFromRecord(rule: FenceRule, record: PairRecord | undefined): GeofenceSnapshot {
  if (record === undefined) return geofenceMachine.resolveState({ value: 'outside', context: emptyContext(rule) });
  return geofenceMachine.resolveState({
    value: record.state,
    context: {
      rule,
      since: record.since,
      enteredAt: record.enteredAt,
      deadline: record.deadline ?? null,
      lastPointAt: record.lastPointAt ?? null,
      history: record.history,
      last: record.history.length > 0 ? record.history[record.history.length - 1] : null,
    },
  });
}

/** The persisted form of a snapshot; `undefined` for outside. */
export function recordFromSnapshot(s: GeofenceSnapshot): PairRecord | undefined {
  const state = s.value as MachineState;
  if (state === 'outside') return undefined;
  const c = s.context;
  const r: PairRecord = { state, since: c.since as number, enteredAt: c.enteredAt as number, history: c.history };
  if (c.deadline !== null) r.deadline = c.deadline;
  if (c.lastPointAt !== null) r.lastPointAt = c.lastPointAt;
  return r;
}

/** The effects carried by the actions a transition selected (non-effect actions are ignored). */
export function effectsFromActions(actions: readonly { type: string; params?: unknown }[]): Effect[] {
  const effects: Effect[] = [];
  for (const a of actions) {
    if (a.type === 'fire') effects.push({ type: 'FIRE', ...(a.params as FireParams) });
    else if (a.type === 'suppress') effects.push({ type: 'SUPPRESSED', ...(a.params as SuppressParams) });
    else if (a.type === 'visit') effects.push({ type: 'VISIT', ...(a.params as VisitParams) });
  }
  return effects;
}

// xstate's `transition()` builds a throwaway actor and actor system on every call (~30 µs). This
// machine has no children, delays or spawns, so one inert scope, built the same way, serves every
// call: it collects the selected actions instead of executing them. The property tests check
// this against xstate's own `transition()`.
let scope: AnyActorScope | undefined;
let collected: { type: string; params?: unknown }[] = [];

function inertScope(): AnyActorScope {
  if (scope === undefined) {
    const self = createActor(geofenceMachine, { input: { rule: NO_RULE } });
    scope = {
      self,
      defer: () => {},
      id: '',
      logger: () => {},
      sessionId: '',
      stopChild: () => {},
      system: self.system,
      emit: () => {},
      actionExecutor: (a: { type: string; params?: unknown }) => {
        collected.push(a);
      },
    } as unknown as AnyActorScope;
  }
  return scope;
}

/**
 * One pure machine step: the next snapshot, the effects as data, and the transition taken
 * (undefined when the event changed nothing, or dropped the pair: LEAVE_LAYER and FORGET record none).
 */
export function runMachine(
  snapshot: GeofenceSnapshot,
  event: MachineEvent,
): { snapshot: GeofenceSnapshot; effects: Effect[]; transition: Transition | undefined } {
  const s = inertScope();
  collected = [];
  const next = geofenceMachine.transition(snapshot, event, s);
  const effects = effectsFromActions(collected);
  collected = [];
  const moved = next.context.last !== snapshot.context.last;
  return { snapshot: next, effects, transition: moved ? (next.context.last ?? undefined) : undefined };
}
