// location/update bodies in the shard: each body's JSON is parsed and its points checked here
// (schemas/), off the main thread, then every accepted request's points go into one column batch
// (with the rows of the points the host read itself). A request with a bad body or a bad point is
// refused whole and moves nothing. What goes back is the batch's columns and only the whole points
// the host needs and does not have (see BodiesOutput).
import { newestIndex, readBodyText, type LocationPoint } from '../src/schemas/location-points.js';
import {
  emptyBatch, locatingRow, putPoint, rowOf, type BodiesOutput, type BodyRequest, type BodyResult, type PointBatch, type RowInput, type ShardOutput,
} from './protocol.js';

export interface ReadBodies {
  batch: PointBatch;
  results: BodyResult[];
  /** By row of the batch; none for the rows of a `rows` request (the host has those points). */
  points: (LocationPoint | undefined)[];
}

export function readBodies(requests: readonly BodyRequest[]): ReadBodies {
  const results: BodyResult[] = [];
  const points: (LocationPoint | undefined)[] = [];
  const rows: RowInput[] = [];
  const owners: string[] = [];
  for (const r of requests) {
    let list: readonly { at: number }[];
    if (r.rows) {
      list = r.rows;
      for (const row of r.rows) {
        rows.push(row);
        points.push(undefined);
      }
    } else {
      const read = readBodyText(r.text ?? '', r.now, r.timeZone);
      if ('error' in read) {
        results.push(read);
        continue;
      }
      list = read.points;
      for (const p of read.points) {
        rows.push(rowOf(p));
        points.push(p);
      }
    }
    const first = rows.length - list.length;
    for (let k = first; k < rows.length; k++) owners.push(r.userId);
    results.push({ first, count: list.length, newest: first + newestIndex(list) });
  }
  const batch = emptyBatch(rows.length);
  const ids = new Map<string, number>();
  for (let k = 0; k < rows.length; k++) putPoint(batch, k, { userId: owners[k]!, ...rows[k]! }, ids);
  return { batch, results, points };
}

/** The shard's output with the request results, the columns and the whole points the host needs. */
export function bodiesOutput(out: ShardOutput, read: ReadBodies, requests: readonly BodyRequest[]): BodiesOutput {
  const rows = new Set<number>();
  read.results.forEach((r, i) => {
    if ('error' in r) return;
    if (requests[i]!.all) for (let k = r.first; k < r.first + r.count; k++) rows.add(k);
    else rows.add(r.newest);
  });
  // A firing's location: the point that caused it, or the one that locates a dwell reached inside the batch.
  for (const e of out.effects) {
    if (e.type !== 'FIRE') continue;
    const row = e.point ?? locatingRow(read.batch, e.userId, e.at);
    if (row >= 0) rows.add(row);
  }
  const full: BodiesOutput['full'] = [];
  for (const k of [...rows].sort((a, b) => a - b)) {
    const p = read.points[k];
    if (p) full.push([k, p]);
  }
  const res: BodiesOutput = { effects: out.effects, changes: out.changes, results: read.results, batch: read.batch, full };
  if (out.timeline !== undefined) res.timeline = out.timeline;
  return res;
}
