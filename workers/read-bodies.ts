// location/update bodies in the shard: each body's JSON text (or a form body's value) is read and
// its points checked here (schemas/), off the main thread, then every accepted request's points go
// into one column batch. A request with a bad body or a bad point is refused whole and moves
// nothing. What goes back is the batch's columns and the rows to store (StoredRows): every point of
// a request whose application keeps history, each request's newest as its user's last location,
// and the points that locate firings; each with its uuid (made here when the phone sent none) and
// its JSON parts as text, so the host binds them to statements as they are.
import { randomUUID } from 'node:crypto';
import { newestIndex, readBodyText, readBodyValue, type LocationPoint } from '../src/schemas/location-points.js';
import {
  emptyBatch, putPoint, ROW_HISTORY, ROW_LAST, ROW_OWN_UUID, type BodiesOutput, type BodyRequest, type BodyResult, type PointBatch,
  type ShardOutput, type StoredRows,
} from './protocol.js';

export interface ReadBodies {
  batch: PointBatch;
  results: BodyResult[];
  /** By row of the batch. */
  points: LocationPoint[];
}

export function readBodies(requests: readonly BodyRequest[]): ReadBodies {
  const results: BodyResult[] = [];
  const points: LocationPoint[] = [];
  const owners: number[] = [];
  requests.forEach((r, i) => {
    const read = r.text !== undefined ? readBodyText(r.text, r.now, r.timeZone) : readBodyValue(r.value, r.now, r.timeZone);
    if ('error' in read) {
      results.push(read);
      return;
    }
    const first = points.length;
    for (const p of read.points) {
      points.push(p);
      owners.push(i);
    }
    results.push({ first, count: read.points.length, newest: first + newestIndex(read.points) });
  });
  const batch = emptyBatch(points.length);
  const ids = new Map<string, number>();
  for (let k = 0; k < points.length; k++) {
    const p = points[k]!;
    const r = requests[owners[k]!]!;
    putPoint(batch, k, { userId: r.userId, at: p.at, lat: p.latitude, lon: p.longitude, acc: p.accuracy, receivedAt: r.now }, ids);
  }
  return { batch, results, points };
}

/** Marks a row kept without a flag of its own (it locates a firing). */
const KEPT = 8;

/** The shard's output with the request results, the columns and the rows to store. */
export function bodiesOutput(out: ShardOutput, read: ReadBodies, requests: readonly BodyRequest[], applied: number): BodiesOutput {
  const n = read.points.length;
  const flags = new Uint8Array(n);
  read.results.forEach((r, i) => {
    if ('error' in r) return;
    if (requests[i]!.all) for (let k = r.first; k < r.first + r.count; k++) flags[k]! |= ROW_HISTORY;
    flags[r.newest]! |= ROW_LAST;
  });
  for (const e of out.effects) {
    if (e.type !== 'FIRE') continue;
    const row = e.point ?? e.loc;
    if (row !== undefined) flags[row]! |= KEPT;
  }
  const res: BodiesOutput = { effects: out.effects, changes: out.changes, results: read.results, batch: read.batch, stored: storedRows(read.points, flags), applied };
  if (out.timeline !== undefined) res.timeline = out.timeline;
  return res;
}

function storedRows(points: readonly LocationPoint[], flags: Uint8Array): StoredRows {
  let kept = 0;
  for (let k = 0; k < flags.length; k++) if (flags[k] !== 0) kept++;
  const stored: StoredRows = { row: new Int32Array(kept), flags: new Uint8Array(kept), extra: new Float64Array(kept * 4), text: new Array(kept * 3) };
  let j = 0;
  for (let k = 0; k < flags.length; k++) {
    if (flags[k] === 0) continue;
    const p = points[k]!;
    stored.row[j] = k;
    stored.flags[j] = (flags[k]! & (ROW_HISTORY | ROW_LAST)) | (p.uuid !== undefined ? ROW_OWN_UUID : 0);
    stored.extra[j * 4] = p.speed ?? NaN;
    stored.extra[j * 4 + 1] = p.altitude ?? NaN;
    stored.extra[j * 4 + 2] = p.heading ?? NaN;
    stored.extra[j * 4 + 3] = p.vertical_accuracy ?? NaN;
    stored.text[j * 3] = p.uuid ?? randomUUID();
    stored.text[j * 3 + 1] = p.raw === null ? null : JSON.stringify(p.raw);
    stored.text[j * 3 + 2] = p.client === undefined ? null : JSON.stringify(p.client);
    j++;
  }
  return stored;
}
