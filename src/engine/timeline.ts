// The decision timeline on the host's side: the shards' timeline records (workers/shard-timeline.ts)
// as stored documents, written in the same persist as the machine records, and each pair's entries
// kept to TIMELINE_MAX_PER_PAIR. The replay (replay.ts) turns records into documents the same way.
import type { TimelineRecord } from '../../workers/protocol.js';
import type { TimelineDoc, TimelineRow } from '../store/documents.js';
import type { Store } from '../store/store.js';
import { pairId } from './state-store.js';

/** Deterministic, so that re-evaluating a batch after a crash yields the same id and no second firing. */
export const eventId = (userId: string, triggerId: string, placeId: string, on: string, at: number) =>
  `${userId}:${triggerId}:${placeId}:${on}:${at}`;


const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * One record as an entry, for the application `appId`. `receivedAt`: when the service received the
 * point behind it or applied the tick, for a record that does not say (a rule change, a replay).
 */
export function timelineRow(r: TimelineRecord, appId: string, receivedAt: number): TimelineRow {
  const fired = r.kind === 'fired' && r.event !== null;
  const noPoint = Number.isNaN(r.lat);
  const row: TimelineRow = {
    app_id: appId,
    user_id: r.userId,
    trigger_id: r.triggerId,
    place_id: r.placeId,
    layer_id: r.layerId || null,
    kind: r.kind,
    event: r.event,
    from: r.from,
    to: r.to,
    gate: r.gate,
    note: r.note,
    point_date: noPoint ? null : r.pointAt,
    latitude: noPoint ? null : r.lat,
    longitude: noPoint ? null : r.lon,
    horizontal_accuracy: noPoint || Number.isNaN(r.acc) ? null : r.acc,
    zone: r.zone,
    distance_m: Number.isNaN(r.distance) ? null : round1(r.distance),
    firing_id: fired ? eventId(r.userId, r.triggerId, r.placeId, r.event === 'leave' ? 'leave' : 'enter', r.at) : null,
    at: r.at,
    received_at: Number.isNaN(r.receivedAt) ? receivedAt : r.receivedAt,
  };
  if (r.boundary !== undefined) row.boundary = { shape: r.boundary.shape, outside_m: round1(r.boundary.outside), margin_m: round1(r.boundary.margin) };
  if (r.detail !== undefined) row.detail = r.detail;
  return row;
}

/** A row as the document the API shows (a replay's entries, never stored). */
export function timelineDoc(row: TimelineRow, _id: string): TimelineDoc {
  const doc: TimelineDoc = {
    _id, app_id: row.app_id, user_id: row.user_id, trigger_id: row.trigger_id, place_id: row.place_id, layer_id: row.layer_id,
    kind: row.kind, event: row.event, from: row.from, to: row.to, gate: row.gate, note: row.note,
    point: row.point_date === null ? null : { date: row.point_date, latitude: row.latitude!, longitude: row.longitude!, horizontal_accuracy: row.horizontal_accuracy },
    zone: row.zone, distance_m: row.distance_m, firing_id: row.firing_id, at: row.at, received_at: row.received_at,
  };
  if (row.boundary !== undefined) doc.boundary = row.boundary;
  if (row.detail !== undefined) doc.detail = row.detail;
  return doc;
}

/** Pairs whose counts are remembered at most (a forgotten pair counts as full again: still bounded). */
const MAX_COUNTED = 100_000;

/**
 * Writes the engine's timeline records. Each pair's entries are counted here; once a pair has a
 * quarter of the cap more than it may keep, one statement trims it back (so a pair holds at most
 * 1.25 × the cap, and the trim is one store call per cap/4 entries of a pair, not one per point).
 */
export class TimelineWriter {
  /** Entries per pair since it was last trimmed (a pair first seen counts as full). */
  private readonly counts = new Map<string, number>();
  private readonly trims = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly maxPerPair: number,
  ) {}

  /** The rows of a batch's records; users the host no longer knows are left out. */
  rows(records: readonly TimelineRecord[], appOf: (userId: string) => string | undefined, receivedAt: number): TimelineRow[] {
    const rows: TimelineRow[] = [];
    for (const r of records) {
      const appId = appOf(r.userId);
      if (appId !== undefined) rows.push(timelineRow(r, appId, receivedAt));
    }
    return rows;
  }

  /** Inserts the rows (one store call), then trims the pairs that grew past their share. */
  async write(rows: readonly TimelineRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.store.timeline.add(rows);
    const over = this.maxPerPair + Math.max(1, Math.floor(this.maxPerPair / 4));
    for (const d of rows) {
      const id = pairId(d.user_id, d.trigger_id, d.place_id);
      const n = (this.counts.get(id) ?? this.maxPerPair) + 1;
      if (n < over) {
        if (this.counts.size >= MAX_COUNTED && !this.counts.has(id)) this.counts.clear();
        this.counts.set(id, n);
        continue;
      }
      this.counts.set(id, this.maxPerPair);
      const t = this.store.timeline.trimPair(d, this.maxPerPair).catch(() => undefined);
      this.trims.add(t);
      void t.finally(() => this.trims.delete(t));
    }
  }

  /** A deleted user's entries go with them. */
  async forgetUser(userId: string): Promise<void> {
    await this.store.timeline.removeUser(userId);
  }

  /** Resolves when the trims under way are done (before the store closes). */
  async idle(): Promise<void> {
    await Promise.all([...this.trims]);
  }
}
