// A bound on expensive work that anyone with a public API key can start, shared fairly. Each scrypt
// check holds a libuv thread and 128 MiB for hundreds of ms, and the password grant needs only the
// client_id. A single first-come queue let one flood fill it: 40 loops of wrong passwords against
// one account made every other login of the service answer 429.
//
// So waiting work is queued per key (an account) inside a group (an application), and a free slot
// serves the groups in turn and, inside a group, its keys in turn: a flood against one account
// waits behind itself, not in front of the others. Each key may have only a few checks in flight,
// each group a few more waiting, the whole gate a bounded number; beyond a bound the caller is
// told to come back (GateFullError, a 429 with Retry-After) rather than queueing without end.

export class GateFullError extends Error {
  constructor(readonly scope: 'key' | 'group' | 'gate') {
    super(`too much of this work is waiting (${scope})`);
  }
}

export interface FairGateLimits {
  /** Runs at once. */
  concurrency: number;
  /** Running plus waiting for one key. */
  perKey: number;
  /** Waiting for one group. */
  perGroup: number;
  /** Waiting in all. */
  total: number;
}

interface Group {
  /** Keys with waiting work, in turn order (a Map keeps insertion order; a served key moves last). */
  keys: Map<string, Array<() => void>>;
  waiting: number;
}

export class FairGate {
  private running = 0;
  private waiting = 0;
  /** Groups with waiting work, in turn order. */
  private readonly groups = new Map<string, Group>();
  /** Running plus waiting per group and key. */
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly limits: FairGateLimits) {}

  async run<T>(group: string, key: string, work: () => Promise<T>): Promise<T> {
    const id = `${group}\0${key}`;
    const mine = this.inFlight.get(id) ?? 0;
    if (mine >= this.limits.perKey) throw new GateFullError('key');
    if (this.running >= this.limits.concurrency) {
      if (this.waiting >= this.limits.total) throw new GateFullError('gate');
      if ((this.groups.get(group)?.waiting ?? 0) >= this.limits.perGroup) throw new GateFullError('group');
    }
    this.inFlight.set(id, mine + 1);
    try {
      if (this.running >= this.limits.concurrency) await this.enqueue(group, id);
      else this.running++;
      try {
        return await work();
      } finally {
        this.running--;
        this.next();
      }
    } finally {
      const left = (this.inFlight.get(id) ?? 1) - 1;
      if (left > 0) this.inFlight.set(id, left);
      else this.inFlight.delete(id);
    }
  }

  /** Resolves when a slot is handed to this run (the slot is counted for it already). */
  private enqueue(groupId: string, id: string): Promise<void> {
    return new Promise((resolve) => {
      let group = this.groups.get(groupId);
      if (!group) this.groups.set(groupId, (group = { keys: new Map(), waiting: 0 }));
      const queue = group.keys.get(id);
      if (queue) queue.push(resolve);
      else group.keys.set(id, [resolve]);
      group.waiting++;
      this.waiting++;
    });
  }

  /** Hands a free slot to the next group's next key, round-robin at both levels. */
  private next(): void {
    const first = this.groups.entries().next();
    if (first.done) return;
    const [groupId, group] = first.value;
    const [id, queue] = group.keys.entries().next().value as [string, Array<() => void>];
    const start = queue.shift()!;
    group.keys.delete(id);
    if (queue.length) group.keys.set(id, queue);
    group.waiting--;
    this.waiting--;
    this.groups.delete(groupId);
    if (group.waiting) this.groups.set(groupId, group);
    this.running++;
    start();
  }
}
