// The points of a batch of bodies as the shards handed them back (protocol.ts BodiesOutput): the
// columns of every point applied, and the kept rows with their uuids and JSON parts as text. Read
// here into the rows the store writes, the location of a firing, the point of a machine.
import type { FiringPoint } from '../schemas/firing.js';
import type { MachinePoint, PointRow } from '../store/documents.js';
import type { Store } from '../store/store.js';
import { ROW_OWN_UUID, type BodiesOutput } from '../../workers/protocol.js';
import type { Pending } from './host-state.js';

const orNull = (n: number) => (Number.isNaN(n) ? null : n);

export class BatchRows {
  /** By batch row: its index among the kept rows, or -1. */
  private readonly kept: Int32Array;
  /** By batch row: the index of its request. */
  private readonly request: Int32Array;

  constructor(
    private readonly out: BodiesOutput,
    private readonly requests: readonly Pending[],
  ) {
    const n = out.batch.at.length;
    this.kept = new Int32Array(n).fill(-1);
    out.stored.row.forEach((row, j) => (this.kept[row] = j));
    this.request = new Int32Array(n);
    out.results.forEach((r, i) => {
      if ('error' in r) return;
      this.request.fill(i, r.first, r.first + r.count);
    });
  }

  /** Kept row `j` as the store writes it (history, last location). */
  pointRow(j: number): PointRow {
    const { batch, stored } = this.out;
    const row = stored.row[j]!;
    const p = this.requests[this.request[row]!]!;
    const x = stored.extra;
    const t = stored.text;
    return {
      app_id: p.app._id, user_id: p.userId, uuid: t[j * 3]!, own_uuid: (stored.flags[j]! & ROW_OWN_UUID) !== 0,
      date: batch.at[row]!, latitude: batch.lat[row]!, longitude: batch.lon[row]!, horizontal_accuracy: batch.acc[row]!,
      speed: orNull(x[j * 4]!), altitude: orNull(x[j * 4 + 1]!), heading: orNull(x[j * 4 + 2]!), vertical_accuracy: orNull(x[j * 4 + 3]!),
      raw: t[j * 3 + 1]!, client: t[j * 3 + 2]!, received_at: p.now,
    };
  }

  /** The point at batch row `row` (kept: the shards keep every row that locates a firing) as a firing's `location`. */
  location(row: number): FiringPoint {
    const j = this.kept[row]!;
    const { batch, stored } = this.out;
    const x = stored.extra;
    const raw = stored.text[j * 3 + 1]!;
    return {
      date: batch.at[row]!, latitude: batch.lat[row]!, longitude: batch.lon[row]!, horizontal_accuracy: batch.acc[row]!,
      speed: orNull(x[j * 4]!), altitude: orNull(x[j * 4 + 1]!), heading: orNull(x[j * 4 + 2]!), vertical_accuracy: orNull(x[j * 4 + 3]!),
      raw: raw === null ? null : (JSON.parse(raw) as Record<string, unknown>), uuid: stored.text[j * 3]!,
    };
  }

  /** The point at batch row `row`, as the point that last moved a machine. */
  machinePoint(row: number): MachinePoint {
    const b = this.out.batch;
    return { date: b.at[row]!, latitude: b.lat[row]!, longitude: b.lon[row]!, horizontal_accuracy: b.acc[row]! };
  }
}

/**
 * The location of a firing no point of its batch locates (a dwell deadline the clock reached): the
 * user's last location, which is the last point applied before the deadline (a later one would
 * have fired it). Batches are persisted before the ticks that follow them, so it is stored.
 */
export async function storedLocation(store: Store, appId: string, userId: string, at: number): Promise<FiringPoint> {
  const last = await store.lastLocations.of(appId, userId);
  if (last === null) return { date: at, latitude: 0, longitude: 0 };
  return {
    date: last.date, latitude: last.latitude, longitude: last.longitude, horizontal_accuracy: last.horizontal_accuracy,
    speed: last.speed ?? null, altitude: last.altitude ?? null, heading: last.heading ?? null, vertical_accuracy: last.vertical_accuracy ?? null,
    raw: last.raw, uuid: last.uuid,
  };
}
