// The per-application lock of place and trigger writes against layer and place deletions
// (services/structure-lock.ts): creates run side by side, a deletion runs alone, and nothing waiting
// is lost, also beyond the number of creates that may run at once.
import { describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../src/services/context.js';
import { placing, removing, StructureLocks } from '../../src/services/structure-lock.js';

const ctx = { locks: new StructureLocks() } as ServiceContext;
const tick = () => new Promise((r) => setImmediate(r));

/** A task that records when it starts and ends, and finishes when told. */
function gated(log: string[], name: string) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  return {
    run: async () => {
      log.push(`start ${name}`);
      await gate;
      log.push(`end ${name}`);
      return name;
    },
    open: () => open(),
  };
}

describe('structure lock', () => {
  it('runs creates side by side, and a deletion alone: after those under way, before those that came after it', async () => {
    const log: string[] = [];
    const [a, b, del, c] = [gated(log, 'a'), gated(log, 'b'), gated(log, 'del'), gated(log, 'c')];
    const done = [placing(ctx, 'app1', a.run), placing(ctx, 'app1', b.run), removing(ctx, 'app1', del.run), placing(ctx, 'app1', c.run)];
    await tick();
    expect(log).toEqual(['start a', 'start b']);
    a.open();
    await tick();
    expect(log).toEqual(['start a', 'start b', 'end a']);
    b.open();
    await tick();
    expect(log.slice(3)).toEqual(['end b', 'start del']);
    del.open();
    await tick();
    expect(log.slice(5)).toEqual(['end del', 'start c']);
    c.open();
    expect(await Promise.all(done)).toEqual(['a', 'b', 'del', 'c']);
  });

  it("another application's deletion does not wait for this one's creates", async () => {
    const log: string[] = [];
    const a = gated(log, 'a');
    const running = placing(ctx, 'app2', a.run);
    expect(await removing(ctx, 'app3', async () => 'other app')).toBe('other app');
    a.open();
    expect(await running).toBe('a');
  });

  it("belongs to its context: another app's deletion does not wait for this one's creates", async () => {
    const log: string[] = [];
    const a = gated(log, 'a');
    const running = placing(ctx, 'app5', a.run);
    const other = { locks: new StructureLocks() } as ServiceContext;
    expect(await removing(other, 'app5', async () => 'other context')).toBe('other context');
    a.open();
    expect(await running).toBe('a');
  });

  it('runs every one of hundreds of concurrent creates, and a deletion among them, each once', async () => {
    let active = 0;
    let peak = 0;
    let deletingWhileActive = false;
    const create = (i: number) => placing(ctx, 'app4', async () => {
      active++;
      peak = Math.max(peak, active);
      await tick();
      active--;
      return i;
    });
    const first = Array.from({ length: 300 }, (_, i) => create(i));
    const del = removing(ctx, 'app4', async () => {
      deletingWhileActive = active > 0;
      return 'deleted';
    });
    const after = Array.from({ length: 300 }, (_, i) => create(300 + i));
    expect(await Promise.all([...first, del, ...after])).toEqual([...Array.from({ length: 300 }, (_, i) => i), 'deleted', ...Array.from({ length: 300 }, (_, i) => 300 + i)]);
    expect(deletingWhileActive).toBe(false);
    expect(peak).toBeGreaterThan(1);
  });
});
