// The fast path the shard worker calls for every (point, nearby geofence), and for the host's
// events (a rule or membership change, sent to the pairs it concerns). Most points change
// nothing, and an XState transition costs ~10-40 µs, so `needsMachine` decides first with a few
// comparisons; only events that move the pair are handed to the machine. The property tests in
// test/machines prove this gives exactly what running every event through the machine gives.
import { recordFromSnapshot, runMachine, snapshotFromRecord } from './machine-step.js';
import type { Effect, FenceRule, GateLookup, MachineEvent, PairEvent, PairRecord, StepResult } from './types.js';

const NO_EFFECTS: readonly Effect[] = Object.freeze([]);
const OUTSIDE_UNCHANGED: StepResult = Object.freeze({ record: undefined, effects: NO_EFFECTS });

/** No window closed, never fired: the gate inputs when the host supplies none. */
export const OPEN_GATE: GateLookup = () => ({ window: null, lastFiredAt: null });

/**
 * True exactly when the machine would change the pair on this event. Band and unusable points
 * never move a pair, and no point or tick moves a `firedOnce` one; the host's events (release,
 * layer leave, forget) move only the states they concern, and never an outside pair.
 */
export function needsMachine(record: PairRecord | undefined, event: PairEvent): boolean {
  switch (event.type) {
    case 'RELEASE':
      return record?.state === 'firedOnce';
    case 'LEAVE_LAYER':
      return record !== undefined && record.state !== 'firedOnce';
    case 'FORGET':
      return record !== undefined;
  }
  if (record === undefined) return event.type === 'POINT' && event.zone === 'in';
  switch (record.state) {
    case 'firedOnce':
      return false;
    case 'dwelling':
      return event.type === 'POINT' && event.zone === 'out';
    case 'inside':
      if (event.type === 'POINT') {
        if (event.zone === 'out') return true;
        if (event.zone !== 'in') return false;
      }
      return record.deadline !== undefined && event.at >= record.deadline;
  }
}

/**
 * Advance one pair. `record === undefined` is outside. When nothing changes the same record
 * object comes back and no machine runs; gate inputs are only looked up when something moves.
 */
export function step(
  record: PairRecord | undefined,
  rule: FenceRule,
  event: PairEvent,
  gate: GateLookup = OPEN_GATE,
): StepResult {
  if (!needsMachine(record, event)) return record === undefined ? OUTSIDE_UNCHANGED : { record, effects: NO_EFFECTS };
  const r = runMachine(snapshotFromRecord(rule, record), withGate(event, rule, gate));
  const result: StepResult = { record: recordFromSnapshot(r.snapshot), effects: r.effects };
  if (r.transition !== undefined) result.transition = r.transition;
  return result;
}

/** The machine's event: a point or a tick with its gate inputs, the host's events as they are. */
function withGate(event: PairEvent, rule: FenceRule, gate: GateLookup): MachineEvent {
  if (event.type !== 'POINT' && event.type !== 'TICK') return event;
  const g = gate(rule, event.at);
  return event.type === 'POINT'
    ? { type: 'POINT', at: event.at, zone: event.zone, window: g.window, lastFiredAt: g.lastFiredAt }
    : { type: 'TICK', at: event.at, window: g.window, lastFiredAt: g.lastFiredAt };
}
