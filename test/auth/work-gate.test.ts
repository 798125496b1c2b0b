// The bound on scrypt work (auth/work-gate.ts): a few run at once, a few wait, the rest are refused
// at once; a finished or failed run hands its slot to the next waiting one.
import { describe, expect, it } from 'vitest';
import { GateFullError, WorkGate } from '../../src/auth/work-gate.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('WorkGate', () => {
  it('runs at most `concurrency` at once, queues `maxWaiting`, refuses the rest, and hands slots over in order', async () => {
    const gate = new WorkGate(2, 2);
    const jobs = Array.from({ length: 5 }, () => deferred());
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    const runs = jobs.map((d, i) =>
      gate.run(async () => {
        active++;
        peak = Math.max(peak, active);
        order.push(i);
        try {
          await d.promise;
        } finally {
          active--;
        }
        return i;
      }),
    );
    await expect(runs[4]).rejects.toBeInstanceOf(GateFullError);
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([0, 1]);
    jobs[1]!.reject(new Error('boom')); // a failed run frees its slot too
    await expect(runs[1]).rejects.toThrow('boom');
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([0, 1, 2]);
    for (const d of jobs) d.resolve();
    expect(await Promise.all([runs[0], runs[2], runs[3]])).toEqual([0, 2, 3]);
    expect(order).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
    // All slots are free again: two run at once without waiting.
    const again = [deferred(), deferred()];
    const started: number[] = [];
    const more = again.map((d, i) => gate.run(async () => (started.push(i), d.promise)));
    await new Promise((r) => setTimeout(r, 10));
    expect(started).toEqual([0, 1]);
    for (const d of again) d.resolve();
    await Promise.all(more);
  });
});
