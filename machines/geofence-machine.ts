// The decide stage as an XState v5 machine: one per (user, trigger, place). It is the reference
// for the trigger rules of machines/README.md. It never runs as an actor: `runMachine`
// (machine-step.ts) computes one transition purely, as xstate's `transition()` does, returning the
// next snapshot and the selected actions (our effects, as data) without running them. Time only
// arrives inside events.
import { assign, setup, type SnapshotFrom } from 'xstate';
import { type FenceRule, type MachineEvent, type Transition } from './types.js';
import {
  dwellDue, dwellRule, emptyContext, fireParams, gatedMove, isIn, isOut, NO_RULE, passes, releasedInside, suppressParams,
  visitParams, withTransition, type FireParams, type MoveParams, type PairContext, type SuppressParams, type VisitParams,
} from './machine-parts.js';

export { gateOf, type PairContext } from './machine-parts.js';

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
    releasedInside: ({ context: c, event: e }) => releasedInside(c, e),
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
      const history = withTransition(context.history, t);
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
    // A spent pair released inside: a visit under way as of the event (the spent record's entry may
    // be a visit the user has left since), with no dwell deadline and no point that moved it.
    releaseInside: assign(({ context, event }) => {
      const t: Transition = { from: 'firedOnce', to: 'inside', at: event.at, reason: 'one_time_off' };
      return { since: event.at, enteredAt: event.at, deadline: null, lastPointAt: null, history: withTransition(context.history, t), last: t };
    }),
    // The pair stops being tracked: nothing of it is kept, not even the last transition, as the
    // user did not move (the host drops the record and has no transition to log).
    drop: assign(({ context }) => emptyContext(context.rule)),
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
        ...dropped(),
      },
    },
    dwelling: {
      on: { POINT: leaving('dwelling'), ...dropped() },
    },
    // A one-time trigger that fired: no point or tick leaves this state. Leaving the layer keeps
    // it (the trigger stays spent for that user); only lifting the spend or losing the geofence does.
    firedOnce: {
      on: {
        RELEASE: [
          { guard: 'releasedInside', target: 'inside', actions: 'releaseInside' },
          { target: 'outside', actions: { type: 'move', params: { from: 'firedOnce', to: 'outside', reason: 'one_time_off' } } },
        ],
        FORGET: { target: 'outside', actions: 'drop' },
      },
    },
  },
});

/** Leaving the geofence's layer, or losing the geofence: out without firing, nothing recorded. */
function dropped() {
  return {
    LEAVE_LAYER: { target: 'outside', actions: 'drop' },
    FORGET: { target: 'outside', actions: 'drop' },
  } as const;
}

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
