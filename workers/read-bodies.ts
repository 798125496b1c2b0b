// location/update bodies in the shard: each body's JSON is parsed and its points checked here
// (schemas/), off the main thread, then every accepted request's points go into one column batch
// (with the rows of the points the host read itself). A request with a bad body or a bad point is
// refused whole and moves nothing. What goes back is the batch's columns and only the whole points
// the host needs and does not have (see BodiesOutput).
import { NOT_JSON, parseJsonText } from '../src/schemas/json-text.js';
import { parseBatch, type LocationPoint } from '../src/schemas/location-points.js';
import {
  emptyBatch, locatingRow, putPoint, type BodiesOutput, type BodyRequest, type BodyResult, type PointBatch, type RowInput, type ShardOutput,
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
    const first = rows.length;
    if (r.rows) {
      for (const row of r.rows) {
        rows.push(row);
        points.push(undefined);
        owners.push(r.userId);
      }
    } else {
      const json = parseJsonText(r.text ?? '');
      if (!json) {
        results.push({ error: NOT_JSON, code: 'invalid_request' });
        continue;
      }
      const parsed = parseBatch(json.value, r.now);
      if ('error' in parsed) {
        results.push({ error: parsed.error, code: 'invalid_input' });
        continue;
      }
      for (const p of parsed.points) {
        rows.push({ at: p.at, lat: p.latitude, lon: p.longitude, acc: p.accuracy });
        points.push(p);
        owners.push(r.userId);
      }
    }
    // The first of the request's newest points, as the stored last location always was.
    let newest = first;
    for (let k = first + 1; k < rows.length; k++) if (rows[k]!.at > rows[newest]!.at) newest = k;
    results.push({ first, count: rows.length - first, newest });
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
  return { effects: out.effects, changes: out.changes, results: read.results, batch: read.batch, full };
}
