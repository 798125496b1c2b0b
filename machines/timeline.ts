// The decision timeline's rules (machines/README.md "Timeline"): what one step of a pair, or a point
// that moved nothing, means as entries. Pure and allocation-light: the shard calls it for every
// machine step (rare) and for the few points worth noting; the live engine and the replay run the
// same shard code, so both record through these functions and cannot drift apart.
import type { FenceRule, MachineState, PairEvent, PairRecord, StepResult, Transition, Zone } from './types.js';

export type TimelineKind = 'transition' | 'fired' | 'gated' | 'point';
/** The trigger condition an entry concerns. */
export type TimelineEvent = 'enter' | 'leave' | 'dwell';
/**
 * Why a firing did not happen. The machine's `date_window` is split here: `trigger_inactive` when
 * the trigger's own date bounds exclude the time (expired or not started), `date_window` when
 * only the place's do.
 */
export type TimelineGate = 'date_window' | 'time_window' | 'rate_limit' | 'one_time_spent' | 'trigger_inactive';
/** Why an entry that moved nothing (or a leave) is worth showing. */
export type TimelineNote = 'band' | 'unusable_accuracy' | 'stale_point' | 'dwell_too_short';

/** A rule with the trigger's own date bounds (epoch ms), to tell an inactive trigger from a closed place. */
export interface TimelineRule extends FenceRule {
  triggerFrom?: number;
  triggerTo?: number;
}

/** What an entry says, without who and where (the shard adds the user, the point and the geofence). */
export interface TimelineFacts {
  kind: TimelineKind;
  event: TimelineEvent | null;
  from: MachineState | null;
  to: MachineState | null;
  gate: TimelineGate | null;
  note: TimelineNote | null;
  at: number;
}

function eventOf(t: Transition): TimelineEvent | null {
  switch (t.reason) {
    case 'enter':
      return 'enter';
    case 'leave':
      return 'leave';
    case 'dwell_point':
    case 'dwell_tick':
      return 'dwell';
    default:
      return null;
  }
}

/** The gate of a suppressed firing, with the trigger's inactivity told apart from the place's window. */
export function gateOfTransition(rule: TimelineRule, t: Transition): TimelineGate | null {
  const o = t.outcome;
  if (o === undefined || o === 'fired') return null;
  if (o === 'date_window' && ((rule.triggerFrom !== undefined && t.at < rule.triggerFrom) || (rule.triggerTo !== undefined && t.at > rule.triggerTo))) {
    return 'trigger_inactive';
  }
  return o;
}

/**
 * The entry of one machine step, or null when it records none (nothing moved, or the pair was
 * dropped by LEAVE_LAYER / FORGET, which the user did not cause). A transition that fired is one
 * `fired` entry, one whose firing was gated one `gated` entry; a visit left before its dwell
 * deadline is a `transition` noted `dwell_too_short`.
 */
export function stepFacts(rule: TimelineRule, before: PairRecord | undefined, result: StepResult): TimelineFacts | null {
  const t = result.transition;
  if (t === undefined) return null;
  const gate = gateOfTransition(rule, t);
  const kind: TimelineKind = t.outcome === 'fired' ? 'fired' : gate !== null ? 'gated' : 'transition';
  const tooShort = t.reason === 'leave' && before?.deadline !== undefined && t.at < before.deadline;
  return { kind, event: eventOf(t), from: t.from, to: t.to, gate, note: tooShort ? 'dwell_too_short' : null, at: t.at };
}

/** The note a point that moves nothing deserves for a pair in `state` (null: not worth an entry). */
export function pointNote(state: MachineState, zone: Zone, distanceM: number, radiusM: number): TimelineNote | null {
  if (state === 'firedOnce') return null;
  if (zone === 'band') return 'band';
  // Outside, a poor fix matters only when it would have put the user in.
  if (zone === 'unusable') return state !== 'outside' || distanceM <= radiusM ? 'unusable_accuracy' : null;
  return null;
}

/** A point that changed nothing, as an entry. */
export function pointFacts(state: MachineState, note: TimelineNote, at: number): TimelineFacts {
  return { kind: 'point', event: null, from: state, to: state, gate: null, note, at };
}

/**
 * A spent one-time pair (`firedOnce`) that the user enters again (an enter or dwell trigger) or
 * leaves again (a leave trigger): the firing it would have made, gated `one_time_spent`. The
 * shard's spent-pair detector decides by it for history and timeline alike (README "Rules").
 */
export function spentFacts(rule: FenceRule, zone: 'in' | 'out', at: number): TimelineFacts | null {
  const enter = rule.triggerOn === 'enter';
  if (enter !== (zone === 'in')) return null;
  const event: TimelineEvent = enter ? (rule.triggerAfterS > 0 ? 'dwell' : 'enter') : 'leave';
  return { kind: 'gated', event, from: 'firedOnce', to: 'firedOnce', gate: 'one_time_spent', note: null, at };
}

/** Whether a step left the user inside a spent pair (a one-time enter or dwell that just fired). */
export function spentInside(before: PairRecord | undefined, result: StepResult, event: PairEvent): boolean {
  return result.record?.state === 'firedOnce' && before?.state !== 'firedOnce' && (event.type === 'TICK' || (event.type === 'POINT' && event.zone === 'in'));
}
