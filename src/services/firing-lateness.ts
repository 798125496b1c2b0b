// Why a firing went out late (docs/api.md "Delivery forensics"): from the times one firing record
// keeps, the device's time of the point (or the dwell deadline), when the service received it (or
// applied the dwell tick), and when its callback was delivered. Pure: no store, no clock.
import type { FiringRecord } from '../store/firings.js';

/** Lateness beyond which a firing says why, unless the caller sets its own threshold (late_after). */
export const DEFAULT_LATE_AFTER_MS = 60_000;

export interface LatenessRules {
  /** A firing that went out more than this after its device time is late. */
  lateAfterMs: number;
  /** The dwell clock's wait after a restart (DWELL_GRACE_MS) and while running (DWELL_TOLERANCE_MS). */
  dwellGraceMs: number;
  dwellToleranceMs: number;
}

export type LateKind = 'point_late' | 'dwell_grace' | 'attempts_failed';

export interface Late {
  kind: LateKind;
  /** From the device's time (or the dwell deadline) to when it went out. */
  late_s: number;
  /** From the device's time to when the service received the point (or applied the dwell tick). */
  arrival_s: number;
  /** A callback's: from then to its delivery. */
  delivery_s?: number;
  /** A callback's attempts before the one that delivered it. */
  failed_attempts?: number;
  /** dwell_grace: the grace the dwell clock waits after a restart. */
  grace_s?: number;
}

const seconds = (ms: number) => Math.round(ms) / 1000;

/**
 * The `late` object of a firing that went out more than `lateAfterMs` after its time, or undefined.
 * It went out when it was stored (a message, or a callback not delivered yet: nothing says it is
 * late yet) or, for a callback, when it was delivered. The kind is the larger part's cause: the
 * arrival (a point that came late, or a dwell deadline that waited for the grace after a restart)
 * or the delivery (its first attempts failed).
 */
export function latenessOf(f: FiringRecord, rules: LatenessRules): Late | undefined {
  if (f.gate || f.run || f.received_at === undefined) return undefined;
  const arrivalMs = Math.max(0, f.received_at - f.date);
  const outAt = f.type === 'callback' ? f.delivered_at : f.received_at;
  if (outAt === undefined) return undefined;
  const lateMs = outAt - f.date;
  if (lateMs <= rules.lateAfterMs) return undefined;
  const deliveryMs = f.type === 'callback' ? Math.max(0, outAt - f.received_at) : 0;
  const failed = f.type === 'callback' ? Math.max(0, f.attempts - 1) : 0;
  let kind: LateKind;
  if (deliveryMs > arrivalMs && failed > 0) kind = 'attempts_failed';
  // While running the clock fires a dwell a tolerance after its deadline; the grace after a restart is longer.
  else if (f.delay_s > 0 && rules.dwellGraceMs > rules.dwellToleranceMs && arrivalMs >= rules.dwellGraceMs) kind = 'dwell_grace';
  else kind = 'point_late';
  const late: Late = { kind, late_s: seconds(lateMs), arrival_s: seconds(arrivalMs) };
  if (f.type === 'callback') {
    late.delivery_s = seconds(deliveryMs);
    late.failed_attempts = failed;
  }
  if (kind === 'dwell_grace') late.grace_s = seconds(rules.dwellGraceMs);
  return late;
}
