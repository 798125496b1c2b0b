// The users of a shard with a pending dwell deadline, and a lower bound of all their deadlines: a
// tick before it has nothing to do.
import type { UserSlot } from './user-slot.js';

export class DeadlineSet {
  private readonly users = new Set<UserSlot>();
  private min = Infinity;

  /** The earliest deadline any user may have (a lower bound: Infinity when none). */
  get next(): number {
    return this.min;
  }

  /** Recompute the user's next deadline and keep the set in step. */
  update(u: UserSlot): void {
    let next = Infinity;
    for (const r of u.pairs?.values() ?? []) if (r.deadline !== undefined && r.deadline < next) next = r.deadline;
    u.nextDeadline = next;
    if (next === Infinity) this.users.delete(u);
    else {
      this.users.add(u);
      if (next < this.min) this.min = next;
    }
  }

  /** Calls `fire` for every user with a deadline ≤ now (it may update them), then tightens the bound. */
  due(now: number, fire: (u: UserSlot) => void): void {
    if (now < this.min) return;
    let min = Infinity;
    for (const u of this.users) {
      if (u.nextDeadline <= now) fire(u);
      if (u.nextDeadline < min) min = u.nextDeadline;
    }
    this.min = min;
  }
}
