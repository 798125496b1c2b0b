// Delivered callbacks' outcomes, written a turn of the event loop at a time (outbox-repo.ts's
// finish() for one delivered row, done for every row delivered in the same turn): one update of
// the outbox per set of equal values and one of trigger/history per attempt count, instead of two
// statements per callback. Each outbox write stays conditional on the row's lease owner.
import type { DocCollection } from '../store/collection.js';
import type { DeliveryStatus, OutboxDoc, TriggerHistoryDoc } from '../store/documents.js';
import { LEASE_MARGIN_MS, type Leased } from './lease.js';

export class DeliveredWrites {
  /** Rows delivered in this turn of the event loop, waiting for their shared write. */
  private turn?: DeliveredTurn;

  constructor(
    private readonly outbox: DocCollection<OutboxDoc>,
    private readonly history: DocCollection<TriggerHistoryDoc>,
  ) {}

  /**
   * A delivered row's outcome, written with those of every other row delivered in the same turn
   * of the event loop: one update of the outbox per set of equal values (most rows of a turn share
   * their attempts, status, duration and time) and one of trigger/history per attempt count,
   * instead of two statements per callback. The same writes, conditions and order as finish().
   */
  add(row: Leased, durationMs: number, at: number, now: number): Promise<boolean> {
    let turn = this.turn;
    if (!turn) {
      const rows: DeliveredRow[] = [];
      // After this turn's microtasks, so that every round finishing in it has joined.
      const lost = new Promise<ReadonlySet<string>>((resolve, reject) => setImmediate(() => {
        if (this.turn?.rows === rows) this.turn = undefined;
        this.writeDelivered(rows).then(resolve, reject);
      }));
      this.turn = turn = { rows, lost };
    }
    turn.rows.push({ row, durationMs, at, now });
    return turn.lost.then((lost) => !lost.has(row._id));
  }

  /** Writes a turn's delivered rows; resolves with the ids whose lease was lost before (nothing of theirs written). */
  private async writeDelivered(rows: DeliveredRow[]): Promise<ReadonlySet<string>> {
    let now = 0;
    for (const d of rows) now = Math.max(now, d.now);
    const groups = new Map<string, DeliveredRow[]>();
    for (const d of rows) {
      const key = `${d.row.attempts}\u0000${d.row.last_status ?? ''}\u0000${d.durationMs}\u0000${d.at}`;
      const g = groups.get(key);
      if (g) g.push(d);
      else groups.set(key, [d]);
    }
    const checked: Array<Promise<readonly string[]>> = [];
    for (const g of groups.values()) checked.push(this.markDelivered(g, now));
    // History mirrors the row: together while the lease surely is still ours, else only if it was.
    const together = rows.filter((d) => now + LEASE_MARGIN_MS < d.row.lease_until);
    const [lostLists] = await Promise.all([Promise.all(checked), this.historyDelivered(together, now)]);
    const lost = new Set(lostLists.flat());
    if (together.length < rows.length) await this.historyDelivered(rows.filter((d) => !(now + LEASE_MARGIN_MS < d.row.lease_until) && !lost.has(d.row._id)), now);
    return lost;
  }

  /** Marks rows delivered that share their values, each only while its lease is ours; returns the ids that were not. */
  private async markDelivered(g: DeliveredRow[], now: number): Promise<readonly string[]> {
    const { row: first, durationMs, at } = g[0]!;
    const set: Partial<OutboxDoc> = { status: 'delivered', delivered_at: at, lease_until: 0, last_duration_ms: durationMs, attempts: first.attempts, updated_at: now };
    if (first.last_status !== undefined) set.last_status = first.last_status;
    const update = { $set: set, $unset: { last_error: '', payload: '' } } as const;
    if (g.length === 1) {
      const res = await this.outbox.updateOne({ _id: first._id, lease_owner: first.lease_owner }, update);
      return res.matchedCount === 0 ? [first._id] : [];
    }
    const ids = g.map((d) => d.row._id);
    // Owners are new for every lease this loop takes, so one of them never names another's lease.
    const owners = [...new Set(g.map((d) => d.row.lease_owner))];
    const res = await this.outbox.updateMany({ _id: { $in: ids }, lease_owner: { $in: owners } }, update);
    if (res.matchedCount === g.length) return [];
    // Some leases ran out and another loop owns those rows now: which ones.
    const found = await this.outbox.find({ _id: { $in: ids } }, { projection: { _id: 1, lease_owner: 1 } }).toArray();
    const owner = new Map(found.map((r) => [r._id, r.lease_owner]));
    return g.filter((d) => owner.get(d.row._id) !== d.row.lease_owner).map((d) => d.row._id);
  }

  /** trigger/history of delivered rows: one update per attempt count. */
  private async historyDelivered(rows: DeliveredRow[], now: number): Promise<void> {
    const byAttempts = new Map<number, string[]>();
    for (const d of rows) {
      const ids = byAttempts.get(d.row.attempts);
      if (ids) ids.push(d.row._id);
      else byAttempts.set(d.row.attempts, [d.row._id]);
    }
    await Promise.all([...byAttempts].map(([attempts, ids]) => this.history.updateMany(
      ids.length === 1 ? { _id: ids[0]! } : { _id: { $in: ids } },
      { $set: { 'delivery.status': 'delivered' as DeliveryStatus, 'delivery.attempts': attempts, 'delivery.updated_at': now } },
    )));
  }
}

interface DeliveredRow {
  row: Leased;
  durationMs: number;
  /** When the delivering attempt came back. */
  at: number;
  now: number;
}

interface DeliveredTurn {
  rows: DeliveredRow[];
  /** Settles once the turn's rows are written: the ids whose lease was lost. */
  lost: Promise<ReadonlySet<string>>;
}
