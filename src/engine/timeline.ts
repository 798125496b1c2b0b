// The decision timeline on the host's side: the shards' timeline records (workers/shard-timeline.ts)
// as stored documents, written in the same persist as the machine records, and each pair's entries
// kept to TIMELINE_MAX_PER_PAIR. The replay (replay.ts) turns records into documents the same way.
import { randomBytes } from 'node:crypto';
import type { TimelineRecord } from '../../workers/protocol.js';
import type { TimelineDoc } from '../store/documents.js';
import { timeKey } from '../store/ids.js';
import type { Store } from '../store/store.js';
import { pairId } from './state-store.js';

export const TIMELINE = 'trigger_timeline';

/** Deterministic, so that re-evaluating a batch after a crash yields the same id and no second firing. */
export const eventId = (userId: string, triggerId: string, placeId: string, on: string, at: number) =>
  `${userId}:${triggerId}:${placeId}:${on}:${at}`;


const round1 = (n: number) => Math.round(n * 10) / 10;

/** One record as a document (without `_id`), for the application `appId`. */
export function timelineDoc(r: TimelineRecord, appId: string, _id: string): TimelineDoc {
  const fired = r.kind === 'fired' && r.event !== null;
  const doc: TimelineDoc = {
    _id,
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
    point: Number.isNaN(r.lat)
      ? null
      : { date: r.pointAt, latitude: r.lat, longitude: r.lon, horizontal_accuracy: Number.isNaN(r.acc) ? null : r.acc },
    zone: r.zone,
    distance_m: Number.isNaN(r.distance) ? null : round1(r.distance),
    firing_id: fired ? eventId(r.userId, r.triggerId, r.placeId, r.event === 'leave' ? 'leave' : 'enter', r.at) : null,
    at: r.at,
  };
  if (r.boundary !== undefined) doc.boundary = { shape: r.boundary.shape, outside_m: round1(r.boundary.outside), margin_m: round1(r.boundary.margin) };
  return doc;
}

/** Pairs whose counts are remembered at most (a forgotten pair counts as full again: still bounded). */
const MAX_COUNTED = 100_000;

/**
 * Writes the engine's timeline records. Ids are the time, this process's tag and a counter: unique
 * without a read, sortable by time. Each pair's entries are counted here; once a pair has a quarter
 * of the cap more than it may keep, one query trims it back (so a pair holds at most 1.25 × the cap,
 * and the trim is one store call per cap/4 entries of a pair, not one per point).
 */
export class TimelineWriter {
  private readonly tag = randomBytes(4).toString('hex');
  private seq = 0;
  /** Entries per pair since it was last trimmed (a pair first seen counts as full). */
  private readonly counts = new Map<string, number>();
  private readonly trims = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly maxPerPair: number,
  ) {}

  /** The documents of a batch's records; users the host no longer knows are left out. */
  docs(records: readonly TimelineRecord[], appOf: (userId: string) => string | undefined): TimelineDoc[] {
    const docs: TimelineDoc[] = [];
    for (const r of records) {
      const appId = appOf(r.userId);
      if (appId === undefined) continue;
      docs.push(timelineDoc(r, appId, `${timeKey(r.at)}-${this.tag}-${(this.seq++).toString(36).padStart(8, '0')}`));
    }
    return docs;
  }

  /** Inserts the documents (one store call), then trims the pairs that grew past their share. */
  async write(docs: TimelineDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await this.store.collection<TimelineDoc>(TIMELINE).insertMany(docs);
    const over = this.maxPerPair + Math.max(1, Math.floor(this.maxPerPair / 4));
    for (const d of docs) {
      const id = pairId(d.user_id, d.trigger_id, d.place_id);
      const n = (this.counts.get(id) ?? this.maxPerPair) + 1;
      if (n < over) {
        if (this.counts.size >= MAX_COUNTED && !this.counts.has(id)) this.counts.clear();
        this.counts.set(id, n);
        continue;
      }
      this.counts.set(id, this.maxPerPair);
      const t = this.trim(d.user_id, d.trigger_id, d.place_id).catch(() => undefined);
      this.trims.add(t);
      void t.finally(() => this.trims.delete(t));
    }
  }

  /** Keeps the pair's newest `maxPerPair` entries. */
  async trim(userId: string, triggerId: string, placeId: string): Promise<void> {
    const col = this.store.collection<TimelineDoc>(TIMELINE);
    const old = await col
      .find({ user_id: userId, trigger_id: triggerId, place_id: placeId }, { sort: { at: -1, _id: -1 }, skip: this.maxPerPair, projection: { _id: 1 } })
      .toArray();
    if (old.length > 0) await col.deleteMany({ _id: { $in: old.map((d) => d._id) } });
  }

  /** A deleted user's entries go with them. */
  async forgetUser(userId: string): Promise<void> {
    await this.store.collection<TimelineDoc>(TIMELINE).deleteMany({ user_id: userId });
  }

  /** Resolves when the trims under way are done (before the store closes). */
  async idle(): Promise<void> {
    await Promise.all([...this.trims]);
  }
}
