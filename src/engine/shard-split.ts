// Splitting work over the shards by the stable hash of the user, and merging the shards' answers.
import {
  emptyBatch, putPoint, type BodiesOutput, type PointBatch, type PointInput, type RecordChange, type ShardEffect, type ShardOutput, type ShardSeed,
  type StoredRows, type TimelineRecord,
} from '../../workers/protocol.js';
import { shardOf } from './shard-hash.js';

export interface ApplyResult {
  effects: ShardEffect[];
  changes: RecordChange[];
  /** Decision timeline entries, when the shards record them (absent: none). */
  timeline?: TimelineRecord[];
}

export const EMPTY: ShardOutput = Object.freeze({ effects: [], changes: [] }) as ShardOutput;

/** Items grouped by the shard of their user. */
export function groupBy<T>(items: readonly T[], user: (t: T) => string, shards: number): T[][] {
  const out: T[][] = Array.from({ length: shards }, () => []);
  for (const it of items) out[shardOf(user(it), shards)]!.push(it);
  return out;
}

/** A seed's users, records and last firings, split by shard (fences go to all: not here). */
export function splitSeed(seed: ShardSeed, shards: number): ShardSeed[] {
  const parts: ShardSeed[] = [];
  const users = groupBy(seed.users ?? [], (u) => u.userId, shards);
  const records = groupBy(seed.records ?? [], (r) => r.userId, shards);
  const lastFired = groupBy(seed.lastFired ?? [], (l) => l.userId, shards);
  for (let i = 0; i < shards; i++) parts[i] = { users: users[i]!, records: records[i]!, lastFired: lastFired[i]! };
  return parts;
}

/** Column batches per shard, plus for each shard the caller's index of each of its points. */
export function splitPoints(points: readonly PointInput[], S: number): { batches: (PointBatch | null)[]; origin: (Int32Array | null)[] } {
  const n = points.length;
  const shardOfPoint = new Uint16Array(n);
  const counts = new Int32Array(S);
  for (let i = 0; i < n; i++) {
    const sh = shardOf(points[i]!.userId, S);
    shardOfPoint[i] = sh;
    counts[sh]!++;
  }
  const batches: (PointBatch | null)[] = [];
  const origin: (Int32Array | null)[] = [];
  const userIds: Map<string, number>[] = [];
  for (let sh = 0; sh < S; sh++) {
    const c = counts[sh]!;
    userIds.push(new Map());
    if (c === 0) {
      batches.push(null);
      origin.push(null);
      continue;
    }
    batches.push(emptyBatch(c));
    origin.push(new Int32Array(c));
  }
  const fill = new Int32Array(S);
  for (let i = 0; i < n; i++) {
    const sh = shardOfPoint[i]!;
    const k = fill[sh]!++;
    putPoint(batches[sh]!, k, points[i]!, userIds[sh]!);
    origin[sh]![k] = i;
  }
  return { batches, origin };
}

export function merge(outs: readonly ShardOutput[]): ApplyResult {
  if (outs.length === 1) {
    const one = outs[0]!;
    const res: ApplyResult = { effects: one.effects.slice(), changes: one.changes.slice() };
    if (one.timeline !== undefined) res.timeline = one.timeline.slice();
    return res;
  }
  const effects: ShardEffect[] = [];
  const changes: RecordChange[] = [];
  let timeline: TimelineRecord[] | undefined;
  for (const o of outs) {
    for (const e of o.effects) effects.push(e);
    for (const c of o.changes) changes.push(c);
    if (o.timeline !== undefined) for (const t of o.timeline) (timeline ??= []).push(t);
  }
  return timeline === undefined ? { effects, changes } : { effects, changes, timeline };
}

/** The shards' answers as one: batches one after the other, rows and users renumbered. */
export function mergeBodies(order: number[][], outs: readonly (BodiesOutput | null)[], n: number): BodiesOutput {
  let rows = 0;
  let kept = 0;
  for (const o of outs) {
    if (!o) continue;
    rows += o.batch.at.length;
    kept += o.stored.row.length;
  }
  const batch = emptyBatch(rows);
  const stored: StoredRows = { row: new Int32Array(kept), flags: new Uint8Array(kept), extra: new Float64Array(kept * 4), text: [] };
  const merged: BodiesOutput = { effects: [], changes: [], results: new Array(n), batch, stored, applied: 0 };
  let off = 0;
  let keptOff = 0;
  outs.forEach((o, sh) => {
    if (!o) return;
    const userOff = batch.users.length;
    batch.users.push(...o.batch.users);
    const len = o.batch.at.length;
    for (let k = 0; k < len; k++) batch.user[off + k] = o.batch.user[k]! + userOff;
    batch.at.set(o.batch.at, off);
    batch.lat.set(o.batch.lat, off);
    batch.lon.set(o.batch.lon, off);
    batch.acc.set(o.batch.acc, off);
    batch.recv.set(o.batch.recv, off);
    const s = o.stored;
    for (let j = 0; j < s.row.length; j++) stored.row[keptOff + j] = s.row[j]! + off;
    stored.flags.set(s.flags, keptOff);
    stored.extra.set(s.extra, keptOff * 4);
    for (const t of s.text) stored.text.push(t);
    for (const e of o.effects) merged.effects.push(e.point === undefined && e.loc === undefined ? e : shifted(e, off));
    for (const c of o.changes) merged.changes.push(c.row === undefined ? c : { ...c, row: c.row + off });
    if (o.timeline !== undefined) for (const t of o.timeline) (merged.timeline ??= []).push(t);
    o.results.forEach((r, j) => {
      merged.results[order[sh]![j]!] = 'error' in r ? r : { first: r.first + off, count: r.count, newest: r.newest + off };
    });
    merged.applied += o.applied;
    off += len;
    keptOff += s.row.length;
  });
  return merged;
}

/** An effect whose rows move by `off` (the copy overwrites fields it has: see docs/architecture.md "Conventions"). */
function shifted(e: ShardEffect, off: number): ShardEffect {
  const c = { ...e };
  if (c.point !== undefined) c.point += off;
  if (c.loc !== undefined) c.loc += off;
  return c;
}
