// The pieces the geofence machine is built from: its context, the gate rule, and the parameters
// of its actions (the effects, as data, and the context update of each transition).
import {
  HISTORY_LIMIT,
  type FenceRule,
  type MachineEvent,
  type MachineState,
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

export interface MoveParams {
  from: MachineState;
  to: MachineState;
  reason: TransitionReason;
  outcome?: 'fired' | SuppressReason;
}

export interface FireParams {
  triggerId: string;
  placeId: string;
  triggeredOn: TriggerOn;
  delaySeconds: number;
  at: number;
}

export interface SuppressParams extends FireParams {
  reason: SuppressReason;
}

export interface VisitParams {
  triggerId: string;
  placeId: string;
  at: number;
}

export type Ctx = { context: PairContext; event: MachineEvent };

/** Why a firing at the event's time is gated, or null. Windows first, then the rate limit. */
export function gateOf(rule: FenceRule, event: MachineEvent): SuppressReason | null {
  if (event.type !== 'POINT' && event.type !== 'TICK') return null;
  if (event.window !== null) return event.window;
  if (rule.rateLimitS > 0 && event.lastFiredAt !== null && event.at - event.lastFiredAt < rule.rateLimitS * 1000) {
    return 'rate_limit';
  }
  return null;
}

export const isIn = (e: MachineEvent) => e.type === 'POINT' && e.zone === 'in';
export const isOut = (e: MachineEvent) => e.type === 'POINT' && e.zone === 'out';
export const dwellRule = (r: FenceRule) => r.triggerOn === 'enter' && r.triggerAfterS > 0;
export const passes = (c: PairContext, e: MachineEvent) => gateOf(c.rule, e) === null;
/** Inside with a pending deadline, and the deadline is reached by this tick or in-point. */
export const dwellDue = (c: PairContext, e: MachineEvent) =>
  c.deadline !== null && e.at >= c.deadline && (e.type === 'TICK' || isIn(e));
/**
 * A released spent pair is inside when the user's last point is in, or (an enter trigger) when it
 * does not show them out: it then fires on the next entry, never for the visit that already fired.
 * A leave trigger counts a band or missing point as outside (no leave for a visit no point showed),
 * and a user no longer on the trigger's layer is outside it whatever their point.
 */
export const releasedInside = (c: PairContext, e: MachineEvent) =>
  e.type === 'RELEASE' && e.onLayer && (e.zone === 'in' || (e.zone !== 'out' && c.rule.triggerOn === 'enter'));

export function dwellSeconds(c: PairContext): number {
  if (c.deadline === null || c.enteredAt === null) return c.rule.triggerAfterS;
  return Math.round((c.deadline - c.enteredAt) / 1000);
}

export const NO_RULE: FenceRule = { triggerId: '', placeId: '', triggerOn: 'enter', triggerAfterS: 0, oneTime: false, rateLimitS: 0 };

export function emptyContext(rule: FenceRule): PairContext {
  return { rule, since: null, enteredAt: null, deadline: null, lastPointAt: null, history: [], last: null };
}

/** The history with `t` appended, at most HISTORY_LIMIT long (a new array: records are immutable). */
export function withTransition(history: readonly Transition[], t: Transition): Transition[] {
  const h = history.length >= HISTORY_LIMIT ? history.slice(1 - HISTORY_LIMIT) : history.slice();
  h.push(t);
  return h;
}

export const fireParams =
  (triggeredOn: TriggerOn, dwell: boolean) =>
  ({ context, event }: Ctx): FireParams => ({
    triggerId: context.rule.triggerId,
    placeId: context.rule.placeId,
    triggeredOn,
    delaySeconds: dwell ? dwellSeconds(context) : 0,
    at: event.at,
  });

export const suppressParams =
  (triggeredOn: TriggerOn, dwell: boolean) =>
  (args: Ctx): SuppressParams => ({
    ...fireParams(triggeredOn, dwell)(args),
    reason: gateOf(args.context.rule, args.event) ?? 'rate_limit',
  });

export const visitParams = ({ context, event }: Ctx): VisitParams => ({
  triggerId: context.rule.triggerId,
  placeId: context.rule.placeId,
  at: event.at,
});

export const gatedMove =
  (from: MachineState, to: MachineState, reason: TransitionReason) =>
  ({ context, event }: Ctx): MoveParams => ({ from, to, reason, outcome: gateOf(context.rule, event) ?? 'rate_limit' });
