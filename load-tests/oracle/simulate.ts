// The oracle: from the exact points a user's phone had accepted, in the order the server received
// them, the events that must fire (machines/README.md, re-implemented here on purpose). Time-order
// semantics: a dwell deadline that passes before a point is applied before that point, and one that
// passes after the last point fires by the clock with the deadline as its time, once the server's
// tolerance for late points (`dwellToleranceMs`) has passed after it, and not before the grace after
// the server's start (`serviceStart`): an out-point older than the deadline that reaches the server
// by then cancels the dwell.
//
// Where a correct engine may legitimately go either way, the pair is marked ambiguous from that
// moment and its events are not judged:
// - an out-point that cancels a pending dwell reached the server (was acknowledged) only after the
//   clock could fire the deadline, in a later request than the point that
//   set the deadline, so the server's clock may have fired the dwell first;
// - a firing whose time is only known within an interval (a dwell fired by the clock or by the next
//   in-point) and whose gates differ across that interval;
// - a firing within a second of a daily window's boundary; a deadline after the end of observation.
import { zoneOf, windowGate, rateGate, both, type Gate } from './rules.js';
import type { World, UserSpec, ZoneParams, TriggerOn } from '../world.js';

export interface OraclePoint {
  t: number;
  lat: number;
  lng: number;
  acc: number;
  /** Wall-clock ms when the request carrying the point was sent, and when it was acknowledged. */
  sentAt: number;
  ackAt: number;
  /** The request that carried it (any id unique per user). */
  req: number;
}

export interface ExpectedEvent {
  user: number;
  trigger: number;
  place: number;
  geofence: number;
  on: TriggerOn;
  /** The firing time: exact for a point, [deadline, first in-point after it] for a dwell. */
  tMin: number;
  tMax: number;
  cause: 'point' | 'clock';
  /** Wall-clock ms from which the server could know the event: latency is measured from here. */
  causeAt: number;
  /** The triggering point, when a point fired it. */
  lat?: number;
  lng?: number;
  delayS: number;
}

export interface Ambiguity {
  user: number;
  trigger: number;
  /** null: every place of the trigger (a rate limit spans places). */
  place: number | null;
  from: number;
  reason: string;
}

interface PairState {
  state: 'inside' | 'dwelling' | 'firedOnce';
  deadline?: number;
  entrySentAt: number;
  entryReq?: number;
}

export interface OracleOptions {
  zones: ZoneParams;
  /** A request acknowledged this close to a deadline counts as in flight at the deadline. */
  inFlightSlackMs: number;
  /** How long past a dwell deadline the server's running clock waits for late points (DWELL_TOLERANCE_MS). */
  dwellToleranceMs: number;
  /**
   * When the server started and its DWELL_GRACE_MS, when known (the harness started it): for that
   * grace after its start its clock fires no dwell. `at` may be early, never late.
   */
  serviceStart?: { at: number; graceMs: number };
}

export class UserOracle {
  readonly expected: ExpectedEvent[] = [];
  readonly ambiguities: Ambiguity[] = [];
  readonly gated = new Map<string, number>();
  staleIgnored = 0;
  applied = 0;
  private lastApplied: OraclePoint | undefined;
  private readonly pairs = new Map<number, PairState>();
  private readonly lastFired = new Map<number, { min: number; max: number; place: number }>();
  private readonly entered: number[] = [];

  constructor(
    private readonly world: World,
    private readonly user: UserSpec,
    private readonly o: OracleOptions,
  ) {}

  /** When the server's clock may fire deadline `d` (src/engine/dwell-clock.ts, for a service that has not restarted). */
  private clockFiresAt(d: number): number {
    const start = this.o.serviceStart;
    return Math.max(d + this.o.dwellToleranceMs, start ? start.at + start.graceMs : -Infinity);
  }

  apply(p: OraclePoint): void {
    // Older than the last applied point, or that point again: kept in history, moves nothing. As
    // old but elsewhere is applied, in arrival order (machines/README.md, "Order and time").
    const last = this.lastApplied;
    if (last && (p.t < last.t || (p.t === last.t && p.lat === last.lat && p.lng === last.lng && p.acc === last.acc))) {
      this.staleIgnored++;
      return;
    }
    this.lastApplied = p;
    this.applied++;
    const w = this.world;

    // Deadlines that passed before this point fire first, in deadline order.
    const due = [...this.pairs].filter(([, s]) => s.deadline !== undefined && s.deadline <= p.t).sort((a, b) => a[1].deadline! - b[1].deadline! || a[0] - b[0]);
    for (const [g, s] of due) {
      const place = w.places[w.geofences[g].place];
      const tMax = zoneOf(p, place, this.o.zones) === 'in' ? p.t : s.deadline!;
      // Known to the server when its clock fired it or when this point came, if sooner.
      const knownAt = Math.max(s.deadline!, Math.min(this.clockFiresAt(s.deadline!), p.sentAt));
      this.fire(g, s.deadline!, tMax, 'clock', Math.max(knownAt, s.entrySentAt));
    }

    for (const [g, s] of [...this.pairs]) {
      if (s.state === 'firedOnce') continue;
      const gf = w.geofences[g];
      if (zoneOf(p, w.places[gf.place], this.o.zones) !== 'out') continue;
      // The points of one request are applied in order, so only an out-point that came in a later
      // request than the entry can race the server's clock.
      if (s.deadline !== undefined && s.entryReq !== p.req && p.ackAt >= this.clockFiresAt(s.deadline) - this.o.inFlightSlackMs) {
        this.ambiguous(g, s.deadline, 'the out-point reached the server after its clock could fire the dwell deadline');
      }
      this.pairs.delete(g);
      if (w.triggers[gf.trigger].on === 'leave') this.fire(g, p.t, p.t, 'point', p.sentAt, p);
    }

    const entered = this.entered;
    entered.length = 0;
    w.index.scan(p.lat, p.lng, w.maxRadius, (i, lat, lng, radius) => {
      const place = w.places[i]!;
      if (zoneOf(p, place.shape ? place : { lat, lng, radius }, this.o.zones) === 'in') entered.push(i);
    });
    for (const i of entered.sort((a, b) => a - b)) {
      const place = w.places[i];
      if (!this.user.layers.includes(place.layer)) continue;
      const ids = w.byPlace[place.index];
      for (const g of ids) {
        if (this.pairs.has(g)) continue;
        const trigger = w.triggers[w.geofences[g].trigger];
        if (trigger.on === 'enter' && trigger.afterS > 0) {
          this.pairs.set(g, { state: 'inside', deadline: p.t + trigger.afterS * 1000, entrySentAt: p.sentAt, entryReq: p.req });
        } else {
          this.pairs.set(g, { state: 'inside', entrySentAt: p.sentAt });
          if (trigger.on === 'enter') this.fire(g, p.t, p.t, 'point', p.sentAt, p);
        }
      }
    }
  }

  /** The clock reached `now`: pending deadlines it may fire do (for a live simulation). */
  tick(now: number): void {
    const due = [...this.pairs].filter(([, s]) => s.deadline !== undefined && this.clockFiresAt(s.deadline) <= now).sort((a, b) => a[1].deadline! - b[1].deadline! || a[0] - b[0]);
    for (const [g, s] of due) this.fire(g, s.deadline!, s.deadline!, 'clock', Math.max(this.clockFiresAt(s.deadline!), s.entrySentAt));
  }

  /** Deadlines still pending when the points end fire by the clock, if they were observed. */
  finish(observedUntil: number): void {
    const pending = [...this.pairs].filter(([, s]) => s.deadline !== undefined).sort((a, b) => a[1].deadline! - b[1].deadline! || a[0] - b[0]);
    for (const [g, s] of pending) {
      const d = s.deadline!;
      const firesAt = this.clockFiresAt(d);
      if (firesAt <= observedUntil - this.o.inFlightSlackMs) this.fire(g, d, d, 'clock', Math.max(firesAt, s.entrySentAt));
      else this.ambiguous(g, d, 'the clock fires the dwell deadline after the end of observation');
    }
  }

  private ambiguous(g: number, from: number, reason: string, wholeTrigger = false): void {
    const gf = this.world.geofences[g];
    this.ambiguities.push({ user: this.user.index, trigger: gf.trigger, place: wholeTrigger ? null : gf.place, from, reason });
  }

  private gate(g: number, t: number): { gate: Gate; reason: string } {
    const w = this.world;
    const gf = w.geofences[g];
    const trigger = w.triggers[gf.trigger];
    const place = w.places[gf.place];
    const tz = this.user.timezone;
    const tw = windowGate(t, tz, trigger.resolved);
    const pw = windowGate(t, tz, place.resolved);
    const limit = w.layers[place.layer].rateLimitS;
    const last = this.lastFired.get(gf.trigger);
    let rate: Gate = 'open';
    if (last) {
      const a = rateGate(t, limit, last.min);
      const b = rateGate(t, limit, last.max);
      rate = a === b ? a : 'unknown';
    }
    const gate = both(both(tw, pw), rate);
    const reason = tw === 'closed' ? 'trigger window' : pw === 'closed' ? 'place window' : rate === 'closed' ? 'rate limit' : gate;
    return { gate, reason };
  }

  private fire(g: number, tMin: number, tMax: number, cause: 'point' | 'clock', causeAt: number, p?: OraclePoint): void {
    const w = this.world;
    const gf = w.geofences[g];
    const trigger = w.triggers[gf.trigger];
    const a = this.gate(g, tMin);
    const b = tMax === tMin ? a : this.gate(g, tMax);
    let gate = a.gate === b.gate ? a.gate : 'unknown';
    const limited = w.layers[w.places[gf.place].layer].rateLimitS > 0;
    const last = this.lastFired.get(gf.trigger);
    // Two places of a rate-limited trigger at the same instant: which one the engine fires first,
    // and so which one the limit gates, is its own choice.
    const tie = limited && last !== undefined && last.place !== gf.place && last.max >= tMin;
    if (tie) gate = 'unknown';
    if (gate === 'unknown') {
      this.ambiguous(g, tMin, tie ? 'two places of a rate-limited trigger fired at the same instant' : 'the firing time is too close to a gate boundary', limited);
      // Carry on as if it fired: what follows for this pair is not judged anyway.
      gate = 'open';
    }
    const s = this.pairs.get(g);
    if (gate === 'open') {
      this.expected.push({
        user: this.user.index, trigger: gf.trigger, place: gf.place, geofence: g, on: trigger.on, tMin, tMax, cause, causeAt,
        ...(p ? { lat: p.lat, lng: p.lng } : {}), delayS: trigger.on === 'enter' ? trigger.afterS : 0,
      });
      this.lastFired.set(gf.trigger, { min: tMin, max: tMax, place: gf.place });
      if (trigger.oneTime) {
        this.pairs.set(g, { state: 'firedOnce', entrySentAt: s?.entrySentAt ?? causeAt });
        return;
      }
    } else {
      this.gated.set(a.reason, (this.gated.get(a.reason) ?? 0) + 1);
    }
    // A dwell (fired or gated) is spent for this visit; a leave pair is already outside.
    if (s && s.deadline !== undefined) this.pairs.set(g, { state: 'dwelling', entrySentAt: s.entrySentAt });
  }
}
