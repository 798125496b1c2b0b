// location/update bodies in the shard: each body's JSON is parsed and its points checked here
// (schemas/), off the main thread, then every accepted request's points go into one column batch.
// A request with a bad body or a bad point is refused whole and moves nothing. What goes back is
// the batch's columns and only the whole points the host needs (see BodiesOutput).
import { NOT_JSON, parseJsonText } from '../src/schemas/json-text.js';
import { parseBatch, type LocationPoint } from '../src/schemas/location-points.js';
import { emptyBatch, locatingRow, putPoint, type BodiesOutput, type BodyRequest, type BodyResult, type PointBatch, type ShardOutput } from './protocol.js';

export interface ReadBodies {
  batch: PointBatch;
  results: BodyResult[];
  /** By row of the batch. */
  points: LocationPoint[];
}

export function readBodies(requests: readonly BodyRequest[]): ReadBodies {
  const results: BodyResult[] = [];
  const points: LocationPoint[] = [];
  const owners: string[] = [];
  for (const r of requests) {
    let list = r.points;
    if (!list) {
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
      list = parsed.points;
    }
    const first = points.length;
    let newest = first;
    for (const p of list) {
      // The first of the request's newest points, as the stored last location always was.
      if (points.length > first && p.at > points[newest]!.at) newest = points.length;
      points.push(p);
      owners.push(r.userId);
    }
    results.push({ first, count: list.length, newest });
  }
  const batch = emptyBatch(points.length);
  const ids = new Map<string, number>();
  for (let k = 0; k < points.length; k++) {
    const p = points[k]!;
    putPoint(batch, k, { userId: owners[k]!, at: p.at, lat: p.latitude, lon: p.longitude, acc: p.accuracy }, ids);
  }
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
  for (const k of [...rows].sort((a, b) => a - b)) full.push([k, read.points[k]!]);
  return { effects: out.effects, changes: out.changes, results: read.results, batch: read.batch, full };
}
