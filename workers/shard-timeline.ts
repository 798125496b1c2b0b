// The shard's side of the decision timeline (machines/README.md "Timeline"): it turns what the
// machine rules say (machines/timeline.ts) into records with the user, the geofence and the point,
// and keeps the little memory the rules need: the notes recorded in each pair's current episode
// (its stay in one state, near the place), so that points in the band or with a poor fix are one
// entry per episode, not one per point or per return. Spent one-time pairs are followed by
// spent-pairs.ts, which hands its decisions here (`gated`). Only made when the shard records a
// timeline; nothing here runs per point otherwise.
import {
  pointFacts, pointNote, stepFacts, type MachineState, type PairRecord, type StepResult, type TimelineFacts, type TimelineNote, type Zone,
} from '../machines/index.js';
import { haversineM } from '../src/geo/distance.js';
import type { FenceEntry } from '../src/geo/fence-index.js';
import { fenceMarginM, fenceMeasureM, fenceZone } from '../src/geo/fence-zone.js';
import { edgeDistanceM } from '../src/geo/shape-measure.js';
import type { Hysteresis } from '../src/geo/hysteresis.js';
import type { Geofence, ShardOutput, TimelineDetail, TimelineRecord } from './protocol.js';
import { bandDetail, stepDetail } from './timeline-detail.js';
import type { UserSlot } from './user-slot.js';

/** Pairs whose notes a user remembers at most: a user who wandered past many places forgets the oldest. */
const MAX_NOTED = 64;

/** The notes of an episode, as bits. */
const NOTE_BIT: Record<TimelineNote, number> = { band: 1, unusable_accuracy: 2, stale_point: 4, dwell_too_short: 8 };

export class TimelineRecorder {
  constructor(private readonly h: Hysteresis) {}

  // The point being applied (lat NaN: a tick or a host event), and the pair's zone and distance
  // (fenceMeasureM: from the centre of a circle; a shape's is measured again exactly when recorded).
  private at = 0;
  private lat = NaN;
  private lon = NaN;
  private acc = NaN;
  private zone: Zone | null = null;
  private dist = NaN;
  /** When the service received the point being applied (or applied the tick); NaN: not told. */
  recv = NaN;

  /** The events that follow come from the clock (a dwell deadline) or the host, not a point. */
  noPoint(at: number): void {
    this.at = at;
    this.lat = NaN;
    this.lon = NaN;
    this.acc = NaN;
    this.zone = null;
    this.dist = NaN;
  }

  point(at: number, lat: number, lon: number, acc: number): void {
    this.at = at;
    this.lat = lat;
    this.lon = lon;
    this.acc = acc;
    this.zone = null;
    this.dist = NaN;
  }

  /** Where the current point is for the geofence about to be considered. */
  pair(zone: Zone, dist: number): void {
    this.zone = zone;
    this.dist = dist;
  }

  /** One machine step of a pair: its entry; a new state is a new episode. */
  step(out: ShardOutput, u: UserSlot, f: Geofence, before: PairRecord | undefined, res: StepResult): void {
    if (res.record === before) return;
    if (u.noted !== null && u.noted.delete(f.key) && u.noted.size === 0) u.noted = null;
    const facts = stepFacts(f, before, res);
    if (facts !== null) this.push(out, u, f, facts, facts.gate !== null || facts.note !== null ? stepDetail(f, u, before, facts) : undefined);
  }

  /** A point that moved the pair (in `state`) nothing: an entry when it is worth one and the first of its note in the episode. */
  unmoved(out: ShardOutput, u: UserSlot, f: Geofence, state: MachineState, zone: Zone, dist: number, at: number): void {
    // A shape's distance is already measured from its boundary.
    const note = pointNote(state, zone, dist, f.shape === undefined ? f.radius : 0);
    if (note !== null) this.noteOnce(out, u, f, pointFacts(state, note, at), zone, dist);
  }

  /**
   * The user's nearby places were looked up again (they moved away from where they were): the
   * episodes of the outside pairs no longer near are over. Pairs with a record keep theirs until
   * they change state.
   */
  nearChanged(u: UserSlot, near: readonly FenceEntry<Geofence>[]): void {
    const noted = u.noted;
    if (noted === null) return;
    let still: Set<string> | undefined;
    for (const key of noted.keys()) {
      if (u.pairs?.has(key)) continue;
      still ??= new Set(near.map((e) => e.fence.key));
      if (!still.has(key)) noted.delete(key);
    }
    if (noted.size === 0) u.noted = null;
  }

  /** A point older than the user's last applied one, for a pair it would have concerned. */
  stale(out: ShardOutput, u: UserSlot, f: Geofence, state: MachineState, zone: Zone, dist: number, at: number): void {
    this.noteOnce(out, u, f, pointFacts(state, 'stale_point', at), zone, dist);
  }

  /** A spent one-time pair crossed the way its trigger fires (spent-pairs.ts decided it): its gated entry. */
  gated(out: ShardOutput, u: UserSlot, f: Geofence, facts: TimelineFacts, zone: Zone, dist: number): void {
    this.zone = zone;
    this.dist = dist;
    this.push(out, u, f, facts);
  }

  /** A point older than the user's last applied one: an entry for each pair it would have concerned. */
  stalePoint(
    out: ShardOutput, u: UserSlot, fences: ReadonlyMap<string, Geofence>, near: readonly FenceEntry<Geofence>[], h: Hysteresis,
    at: number, lat: number, lon: number, acc: number,
  ): void {
    this.point(at, lat, lon, acc);
    for (const key of u.act) {
      const f = fences.get(key)!;
      const d = fenceMeasureM(f, lat, lon, h);
      this.stale(out, u, f, u.pairs!.get(key)!.state, fenceZone(f, d, acc, h), d, at);
    }
    for (let j = 0; j < near.length; j++) {
      const f = near[j]!.fence;
      if (u.pairs !== null && u.pairs.has(f.key)) continue;
      const d = fenceMeasureM(f, lat, lon, h);
      const zone = fenceZone(f, d, acc, h);
      if (zone === 'in') this.stale(out, u, f, 'outside', zone, d, at);
    }
  }

  private noteOnce(out: ShardOutput, u: UserSlot, f: Geofence, facts: TimelineFacts, zone: Zone, dist: number): void {
    const bit = NOTE_BIT[facts.note!];
    const seen = u.noted?.get(f.key);
    if (seen !== undefined && (seen & bit) !== 0) return;
    if (u.noted === null) u.noted = new Map();
    else if (seen === undefined && u.noted.size >= MAX_NOTED) u.noted.delete(u.noted.keys().next().value!);
    u.noted.set(f.key, (seen ?? 0) | bit);
    this.zone = zone;
    this.dist = dist;
    this.push(out, u, f, facts, facts.note === 'band' ? bandDetail(f, this.h) : undefined);
  }

  private push(out: ShardOutput, u: UserSlot, f: Geofence, facts: TimelineFacts, detail?: TimelineDetail): void {
    // Fields one by one, not spread (docs/architecture.md, Conventions, on spreads in V8 11).
    const shaped = f.shape !== undefined && !Number.isNaN(this.lat);
    const r: TimelineRecord = {
      kind: facts.kind, event: facts.event, from: facts.from, to: facts.to, gate: facts.gate, note: facts.note, at: facts.at,
      userId: u.id, triggerId: f.triggerId, placeId: f.placeId, layerId: f.layerId,
      lat: this.lat, lon: this.lon, acc: this.acc, pointAt: this.at, zone: this.zone,
      distance: shaped ? haversineM(this.lat, this.lon, f.lat, f.lon) : this.dist, receivedAt: this.recv,
    };
    // A shape's own measure, exact (the hot path's stops once the zone is known): how far outside its boundary, against its margin.
    if (shaped) r.boundary = { shape: f.shape!.kind, outside: edgeDistanceM(f.shape!, this.lat, this.lon), margin: fenceMarginM(f, this.h) };
    if (detail !== undefined) r.detail = detail;
    (out.timeline ??= []).push(r);
  }
}
