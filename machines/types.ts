// The data that crosses the machine boundary: events in, effects and records out. Everything
// here is plain and structured-clone-safe, because records are persisted and sent between threads.

export type PairState = 'inside' | 'dwelling' | 'firedOnce';
/** `outside` exists only inside the machine: a pair that is outside has no record. */
export type MachineState = 'outside' | PairState;

export type Zone = 'in' | 'out' | 'band' | 'unusable';
export type TriggerOn = 'enter' | 'leave';
export type SuppressReason = 'date_window' | 'time_window' | 'rate_limit';
export type WindowVerdict = 'date_window' | 'time_window' | null;

/** The rule of one geofence as the machine needs it (geometry stays in the detect stage). */
export interface FenceRule {
  triggerId: string;
  placeId: string;
  triggerOn: TriggerOn;
  /** Dwell seconds; 0 = fire on entering. Only meaningful for `enter`. */
  triggerAfterS: number;
  oneTime: boolean;
  /** Layer's `trigger_rate_limit` in seconds; 0 = none. */
  rateLimitS: number;
}

/**
 * The one-time spend of a `firedOnce` pair is lifted (its trigger stopped being one-time): the
 * pair goes `inside` or `outside`, without firing, by where the user's last applied point puts
 * them (`zone`, null when there is none) and whether they are still on the trigger's layer.
 */
export type ReleaseEvent = { type: 'RELEASE'; at: number; zone: Zone | null; onLayer: boolean };
/** The user left the geofence's layer: an `inside`/`dwelling` pair is dropped without firing. */
export type LeaveLayerEvent = { type: 'LEAVE_LAYER'; at: number };
/** The geofence is gone: the pair is dropped, whatever its state, without firing. */
export type ForgetEvent = { type: 'FORGET'; at: number };
/** Events of rule and membership changes, not of the user's movement: none fires, none needs gate inputs. */
export type HostEvent = ReleaseEvent | LeaveLayerEvent | ForgetEvent;

/** A point or a tick as the step function is told of it; its gate inputs are fetched lazily. */
export type StepEvent = { type: 'POINT'; at: number; zone: Zone } | { type: 'TICK'; at: number };
/** Everything the step function takes. */
export type PairEvent = StepEvent | HostEvent;

/** Gate inputs at a firing time: computed by the host (timezone, windows, last firing). */
export interface GateInputs {
  /** The trigger's and place's date / daily windows at `at`, in the user's timezone. */
  window: WindowVerdict;
  /** Last unsuppressed firing of this trigger for this user (any place), epoch ms. */
  lastFiredAt: number | null;
}

export type GateLookup = (rule: FenceRule, at: number) => GateInputs;

/** Events of the XState machine: a step event with its gate inputs filled in. */
export type PointEvent = { type: 'POINT'; at: number; zone: Zone } & GateInputs;
export type TickEvent = { type: 'TICK'; at: number } & GateInputs;
export type MachineEvent = PointEvent | TickEvent | HostEvent;

/** `one_time_off`: a spent pair released (`RELEASE`) because its trigger stopped being one-time. */
export type TransitionReason = 'enter' | 'dwell_point' | 'dwell_tick' | 'leave' | 'one_time_off';

export interface Transition {
  from: MachineState;
  to: MachineState;
  at: number;
  reason: TransitionReason;
  /** Set when the transition fired (or would have fired, but was gated). */
  outcome?: 'fired' | SuppressReason;
}

/** Compact persisted snapshot of a pair that is not outside. Treated as immutable. */
export interface PairRecord {
  state: PairState;
  /** When the pair entered its current state. */
  since: number;
  /** Start of the current (or last) visit. */
  enteredAt: number;
  /** Pending dwell deadline, epoch ms (only while `inside` with a dwell rule). */
  deadline?: number;
  /** Time of the last point that moved this pair (ticks do not set it). */
  lastPointAt?: number;
  /** Most recent transitions, oldest first, at most HISTORY_LIMIT. */
  history: Transition[];
}

export const HISTORY_LIMIT = 5;

export interface FireEffect {
  type: 'FIRE';
  triggerId: string;
  placeId: string;
  triggeredOn: TriggerOn;
  /** `triggered_delay`: the dwell seconds for a dwell firing, else 0. */
  delaySeconds: number;
  at: number;
}

/** A firing that the gates stopped; the state change still happened. For debugging and history. */
export interface SuppressedEffect {
  type: 'SUPPRESSED';
  reason: SuppressReason;
  triggerId: string;
  placeId: string;
  triggeredOn: TriggerOn;
  delaySeconds: number;
  at: number;
}

/** The user entered the place of this pair (a visit starts). */
export interface VisitEffect {
  type: 'VISIT';
  triggerId: string;
  placeId: string;
  at: number;
}

export type Effect = FireEffect | SuppressedEffect | VisitEffect;

export interface StepResult {
  /** Next record; `undefined` = outside. The same object as the input when nothing changed. */
  record: PairRecord | undefined;
  effects: readonly Effect[];
  /**
   * The transition taken, when one was (also for a pair that went outside and lost its record);
   * none for a pair dropped by LEAVE_LAYER or FORGET.
   */
  transition?: Transition;
}
