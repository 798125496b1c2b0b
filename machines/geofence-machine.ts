// The decide stage as an XState v5 machine: one per (user, trigger, place). It is the reference
// for the trigger rules of machines/README.md. It never runs as an actor: `runMachine` computes one
// transition purely, as xstate's `transition()` does, returning the next snapshot and the selected
// actions (our effects, as data) without running them. Time only arrives inside events.
import { assign, createActor, setup, type AnyActorScope, type SnapshotFrom } from 'xstate';
import {
  HISTORY_LIMIT,
  type Effect,
  type FenceRule,
  type MachineEvent,
  type MachineState,
  type PairRecord,
  type SuppressReason,
  type Transition,
  type TransitionReason,
  type TriggerOn,
} from './types.js';

export interface PairContext {
  rule: FenceRule;
  since: number | null;
  enteredAt: number | null;
  deadline: number | null;
  lastPointAt: number | null;
  history: Transition[];
  /** The last transition taken; survives the reset on going outside so the host can log it. */
  last: Transition | null;
}

interface MoveParams {
  from: MachineState;
  to: MachineState;
  reason: TransitionReason;
  outcome?: 'fired' | SuppressReason;
}

interface FireParams {
  triggerId: string;
  placeId: string;
  triggeredOn: TriggerOn;
  delaySeconds: number;
  at: number;
}

interface SuppressParams extends FireParams {
  reason: SuppressReason;
}

interface VisitParams {
  triggerId: string;
  placeId: string;
  at: number;
}

type Ctx = { context: PairContext; event: MachineEvent };

/** Why a firing at the event's time is gated, or null. Windows first, then the rate limit. */
export function gateOf(rule: FenceRule, event: MachineEvent): SuppressReason | null {
  if (event.window !== null) return event.window;
  if (rule.rateLimitS > 0 && event.lastFiredAt !== null && event.at - event.lastFiredAt < rule.rateLimitS * 1000) {
    return 'rate_limit';
  }
  return null;
}

const isIn = (e: MachineEvent) => e.type === 'POINT' && e.zone === 'in';
const isOut = (e: MachineEvent) => e.type === 'POINT' && e.zone === 'out';
const dwellRule = (r: FenceRule) => r.triggerOn === 'enter' && r.triggerAfterS > 0;
const passes = (c: PairContext, e: MachineEvent) => gateOf(c.rule, e) === null;
/** Inside with a pending deadline, and the deadline is reached by this tick or in-point. */
const dwellDue = (c: PairContext, e: MachineEvent) =>
  c.deadline !== null && e.at >= c.deadline && (e.type === 'TICK' || e.zone === 'in');

function dwellSeconds(c: PairContext): number {
  if (c.deadline === null || c.enteredAt === null) return c.rule.triggerAfterS;
  return Math.round((c.deadline - c.enteredAt) / 1000);
}

const NO_RULE: FenceRule = { triggerId: '', placeId: '', triggerOn: 'enter', triggerAfterS: 0, oneTime: false, rateLimitS: 0 };

function emptyContext(rule: FenceRule): PairContext {
  return { rule, since: null, enteredAt: null, deadline: null, lastPointAt: null, history: [], last: null };
}

const fireParams =
  (triggeredOn: TriggerOn, dwell: boolean) =>
  ({ context, event }: Ctx): FireParams => ({
    triggerId: context.rule.triggerId,
    placeId: context.rule.placeId,
    triggeredOn,
    delaySeconds: dwell ? dwellSeconds(context) : 0,
    at: event.at,
  });

const suppressParams =
  (triggeredOn: TriggerOn, dwell: boolean) =>
  (args: Ctx): SuppressParams => ({
    ...fireParams(triggeredOn, dwell)(args),
    reason: gateOf(args.context.rule, args.event) ?? 'rate_limit',
  });

const visitParams = ({ context, event }: Ctx): VisitParams => ({
  triggerId: context.rule.triggerId,
  placeId: context.rule.placeId,
  at: event.at,
});

const gatedMove =
  (from: MachineState, to: MachineState, reason: TransitionReason) =>
  ({ context, event }: Ctx): MoveParams => ({ from, to, reason, outcome: gateOf(context.rule, event) ?? 'rate_limit' });

export const geofenceMachine = setup({
  types: {
    context: {} as PairContext,
    events: {} as MachineEvent,
    input: {} as { rule: FenceRule },
  },
  // One named guard per transition (rather than and([...]) combinations): each reads as the rule
  // it implements, and xstate evaluates one function per candidate transition.
  guards: {
    startsDwell: ({ context: c, event: e }) => isIn(e) && dwellRule(c.rule),
    entersFiringOnce: ({ context: c, event: e }) => isIn(e) && c.rule.triggerOn === 'enter' && passes(c, e) && c.rule.oneTime,
    entersFiring: ({ context: c, event: e }) => isIn(e) && c.rule.triggerOn === 'enter' && passes(c, e),
    entersGated: ({ context: c, event: e }) => isIn(e) && c.rule.triggerOn === 'enter',
    enters: ({ event: e }) => isIn(e),
    leavesFiringOnce: ({ context: c, event: e }) => isOut(e) && c.rule.triggerOn === 'leave' && passes(c, e) && c.rule.oneTime,
    leavesFiring: ({ context: c, event: e }) => isOut(e) && c.rule.triggerOn === 'leave' && passes(c, e),
    leavesGated: ({ context: c, event: e }) => isOut(e) && c.rule.triggerOn === 'leave',
    leaves: ({ event: e }) => isOut(e),
    dwellsFiringOnce: ({ context: c, event: e }) => dwellDue(c, e) && passes(c, e) && c.rule.oneTime,
    dwellsFiring: ({ context: c, event: e }) => dwellDue(c, e) && passes(c, e),
    dwells: ({ context: c, event: e }) => dwellDue(c, e),
  },
  actions: {
    // Effect actions do nothing when run: they exist so that `transition()` hands back their params.
    fire: (_: unknown, _params: FireParams) => {},
    suppress: (_: unknown, _params: SuppressParams) => {},
    visit: (_: unknown, _params: VisitParams) => {},
    move: assign(({ context, event }, p: MoveParams) => {
      const t: Transition = { from: p.from, to: p.to, at: event.at, reason: p.reason };
      if (p.outcome !== undefined) t.outcome = p.outcome;
      if (p.to === 'outside') return { ...emptyContext(context.rule), last: t };
      const history = context.history.length >= HISTORY_LIMIT ? context.history.slice(1 - HISTORY_LIMIT) : context.history.slice();
      history.push(t);
      const isPoint = event.type === 'POINT';
      const entering = p.from === 'outside';
      const dwell = entering && context.rule.triggerOn === 'enter' && context.rule.triggerAfterS > 0 && p.to === 'inside';
      return {
        since: event.at,
        enteredAt: entering ? event.at : context.enteredAt,
        deadline: dwell ? event.at + context.rule.triggerAfterS * 1000 : null,
        lastPointAt: isPoint ? event.at : context.lastPointAt,
        history,
        last: t,
      };
    }),
  },
}).createMachine({
  id: 'geofence',
  initial: 'outside',
  // `input` is absent when xstate builds a throwaway actor around the logic (as `transition()`
  // does on every call): a context factory that threw there would cost a stack trace per event.
  context: ({ input }) => emptyContext(input?.rule ?? NO_RULE),
  states: {
    outside: {
      on: {
        POINT: [
          {
            guard: 'startsDwell',
            target: 'inside',
            actions: [{ type: 'visit', params: visitParams }, { type: 'move', params: { from: 'outside', to: 'inside', reason: 'enter' } }],
          },
          {
            guard: 'entersFiringOnce',
            target: 'firedOnce',
            actions: [
              { type: 'visit', params: visitParams },
              { type: 'fire', params: fireParams('enter', false) },
              { type: 'move', params: { from: 'outside', to: 'firedOnce', reason: 'enter', outcome: 'fired' } },
            ],
          },
          {
            guard: 'entersFiring',
            target: 'inside',
            actions: [
              { type: 'visit', params: visitParams },
              { type: 'fire', params: fireParams('enter', false) },
              { type: 'move', params: { from: 'outside', to: 'inside', reason: 'enter', outcome: 'fired' } },
            ],
          },
          {
            guard: 'entersGated',
            target: 'inside',
            actions: [
              { type: 'visit', params: visitParams },
              { type: 'suppress', params: suppressParams('enter', false) },
              { type: 'move', params: gatedMove('outside', 'inside', 'enter') },
            ],
          },
          {
            guard: 'enters',
            target: 'inside',
            actions: [{ type: 'visit', params: visitParams }, { type: 'move', params: { from: 'outside', to: 'inside', reason: 'enter' } }],
          },
        ],
      },
    },
    inside: {
      on: {
        POINT: [...leaving('inside'), ...dwelling('dwell_point')],
        TICK: dwelling('dwell_tick'),
      },
    },
    dwelling: {
      on: { POINT: leaving('dwelling') },
    },
    // A one-time trigger that fired: no event leaves this state, for good.
    firedOnce: {},
  },
});

function leaving(from: 'inside' | 'dwelling') {
  return [
    {
      guard: 'leavesFiringOnce',
      target: 'firedOnce',
      actions: [
        { type: 'fire', params: fireParams('leave', false) },
        { type: 'move', params: { from, to: 'firedOnce', reason: 'leave', outcome: 'fired' } },
      ],
    },
    {
      guard: 'leavesFiring',
      target: 'outside',
      actions: [
        { type: 'fire', params: fireParams('leave', false) },
        { type: 'move', params: { from, to: 'outside', reason: 'leave', outcome: 'fired' } },
      ],
    },
    {
      guard: 'leavesGated',
      target: 'outside',
      actions: [
        { type: 'suppress', params: suppressParams('leave', false) },
        { type: 'move', params: gatedMove(from, 'outside', 'leave') },
      ],
    },
    {
      guard: 'leaves',
      target: 'outside',
      actions: [{ type: 'move', params: { from, to: 'outside', reason: 'leave' } }],
    },
  ] as const;
}

function dwelling(reason: 'dwell_point' | 'dwell_tick') {
  return [
    {
      guard: 'dwellsFiringOnce',
      target: 'firedOnce',
      actions: [
        { type: 'fire', params: fireParams('enter', true) },
        { type: 'move', params: { from: 'inside', to: 'firedOnce', reason, outcome: 'fired' } },
      ],
    },
    {
      guard: 'dwellsFiring',
      target: 'dwelling',
      actions: [
        { type: 'fire', params: fireParams('enter', true) },
        { type: 'move', params: { from: 'inside', to: 'dwelling', reason, outcome: 'fired' } },
      ],
    },
    {
      guard: 'dwells',
      target: 'dwelling',
      actions: [
        { type: 'suppress', params: suppressParams('enter', true) },
        { type: 'move', params: gatedMove('inside', 'dwelling', reason) },
      ],
    },
  ] as const;
}

export type GeofenceSnapshot = SnapshotFrom<typeof geofenceMachine>;

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
 * (undefined when the event changed nothing).
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
