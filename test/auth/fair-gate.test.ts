// The shared queue of password hashing (auth/fair-gate.ts): a flood under one key waits behind
// itself, other keys and other groups are served in turn, and each bound refuses at once.
import { describe, expect, it } from 'vitest';
import { FairGate, GateFullError } from '../../src/auth/fair-gate.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => (resolve = res));
  return { promise, resolve };
}

/** A gate whose runs wait until released, recording the order they start in. */
function harness(limits: ConstructorParameters<typeof FairGate>[0]) {
  const gate = new FairGate(limits);
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const run = (group: string, key: string, name: string) =>
    gate.run(group, key, async () => {
      started.push(name);
      const d = deferred();
      releases.set(name, d.resolve);
      await d.promise;
      return name;
    });
  const release = async (name: string) => {
    releases.get(name)!();
    // Let the finished run hand its slot over.
    await new Promise((r) => setImmediate(r));
  };
  return { run, release, started };
}

describe('FairGate', () => {
  it('serves the other keys of a group, and other groups, before a flooding key\'s next run', async () => {
    const { run, release, started } = harness({ concurrency: 1, perKey: 10, perGroup: 10, total: 10 });
    const runs = [run('app1', 'victim', 'v1'), run('app1', 'victim', 'v2'), run('app1', 'victim', 'v3')];
    runs.push(run('app1', 'neighbour', 'n1'), run('app2', 'stranger', 's1'));
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['v1']);
    for (const name of ['v1', 'v2', 's1', 'n1', 'v3']) await release(name);
    // Groups in turn (app1, app2), and inside app1 its keys in turn (victim, neighbour).
    expect(started).toEqual(['v1', 'v2', 's1', 'n1', 'v3']);
    expect(await Promise.all(runs)).toEqual(['v1', 'v2', 'v3', 'n1', 's1']);
  });

  it('refuses beyond a key\'s, a group\'s and the gate\'s bound, and frees them as runs finish', async () => {
    const { run, release } = harness({ concurrency: 1, perKey: 2, perGroup: 2, total: 3 });
    const a1 = run('g1', 'a', 'a1');
    const a2 = run('g1', 'a', 'a2'); // waiting
    await expect(run('g1', 'a', 'a3')).rejects.toEqual(new GateFullError('key'));
    const b1 = run('g1', 'b', 'b1'); // waiting: g1 holds two
    await expect(run('g1', 'c', 'c1')).rejects.toEqual(new GateFullError('group'));
    const d1 = run('g2', 'd', 'd1'); // waiting: three in all
    await expect(run('g3', 'e', 'e1')).rejects.toEqual(new GateFullError('gate'));
    await release('a1');
    expect(await a1).toBe('a1');
    // a1 is done: its key takes another run.
    const a3 = run('g1', 'a', 'a3');
    for (const name of ['a2', 'd1', 'b1', 'a3']) await release(name);
    expect(await Promise.all([a2, b1, d1, a3])).toEqual(['a2', 'b1', 'd1', 'a3']);
  });

  it('hands the slot on when a run fails', async () => {
    const gate = new FairGate({ concurrency: 1, perKey: 2, perGroup: 2, total: 2 });
    const failing = gate.run('g', 'k', async () => {
      throw new Error('boom');
    });
    const next = gate.run('g', 'k', async () => 'ran');
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('ran');
  });
});
