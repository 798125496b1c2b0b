// The harness's CPU account: the cores a server process and the harness used during a phase (read
// from /proc for a real busy child), and the ceiling the box could reach at that CPU per point.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cpuReport, cpuWatch } from '../../load-tests/cpu-budget.js';

describe('cpu budget', () => {
  it('measures a busy child as about one core, and an idle harness as little', async () => {
    const child = spawn(process.execPath, ['-e', 'const end = Date.now() + 4000; while (Date.now() < end);'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 200)); // past its start-up
    const watch = cpuWatch(child.pid!);
    await new Promise((r) => setTimeout(r, 1500));
    const share = watch.stop()!;
    child.kill();
    await once(child, 'exit');
    // One spinning thread: close to a core when the box is idle, far above an idle process (~0)
    // always. The suite runs files side by side on two cores, so the child may get a third of one:
    // it measured 0.498 once, under the whole suite.
    expect(share.server).toBeGreaterThan(0.3);
    expect(share.server).toBeLessThan(1.3);
    expect(share.serverMain).toBeGreaterThan(0.3);
    expect(share.harness).toBeLessThan(0.5);
    // A spinning thread never sleeps: it runs or waits for a core, the two adding up to about one
    // (on an idle box nearly all running; under the suite, part waiting). The host's own steal is
    // neither in this VM (0.78 once, on an idle box in a contended hour), so the floor is well
    // above a sleeping process (~0) rather than at one.
    expect(share.waiting!.serverMain).toBeGreaterThanOrEqual(0);
    expect(share.serverMain + share.waiting!.serverMain).toBeGreaterThan(0.5);
    expect(share.serverMain + share.waiting!.serverMain).toBeLessThan(1.2);
  });

  it('counts the time a process waits for a core when more threads spin than there are cores', async () => {
    // One spinner more than the cores: each runs about cores/(cores+1) of the time and waits the rest.
    const spin = 'const end = Date.now() + 4000; while (Date.now() < end);';
    const children = Array.from({ length: cpus().length + 1 }, () => spawn(process.execPath, ['-e', spin], { stdio: 'ignore' }));
    await new Promise((r) => setTimeout(r, 300));
    const watch = cpuWatch(children[0]!.pid!);
    await new Promise((r) => setTimeout(r, 1500));
    const share = watch.stop()!;
    for (const c of children) c.kill();
    await Promise.all(children.map((c) => once(c, 'exit')));
    expect(share.waiting!.serverMain).toBeGreaterThan(0.05);
    // As above: about one, less what the host steals from this VM.
    expect(share.waiting!.serverMain + share.serverMain).toBeGreaterThan(0.5);
  });

  it('splits a server\'s cores by thread: its main thread, its named threads, the rest', async () => {
    // An idle main thread and one worker that names itself and spins.
    const script = `
      const { Worker } = require('node:worker_threads');
      new Worker("require('node:fs').writeFileSync('/proc/thread-self/comm', 'gt-spin'); const end = Date.now() + 4000; while (Date.now() < end);", { eval: true });
      setTimeout(() => {}, 4500);`;
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 400));
    const watch = cpuWatch(child.pid!);
    await new Promise((r) => setTimeout(r, 1500));
    const share = watch.stop()!;
    child.kill();
    await once(child, 'exit');
    const t = share.serverThreads!;
    // The spinning thread is most of the process, the idle main thread little. Its own share can
    // fall to a quarter of a core under the suite in a contended hour (0.246 once), so it is
    // compared with the rest rather than with a fixed half core.
    expect(t['gt-spin']).toBeGreaterThan(0.15);
    expect(t['gt-spin']).toBeGreaterThan(2 * (t.main! + t.other!));
    expect(t.main).toBeLessThan(0.2);
    expect(t.other).toBeGreaterThanOrEqual(0);
    expect(t.main + t['gt-spin']! + t.other!).toBeCloseTo(share.server, 1);
    expect(cpuReport(10, share)!.service_threads!['gt-spin']).toBeCloseTo(t['gt-spin']!, 2);
  });

  it('gives the ceiling at the measured CPU per point, and its ratio to the baseline', () => {
    const r = cpuReport(10_000, { server: 1.2, serverMain: 0.99, harness: 0.4 }, 30_000, { server: 0.8, serverMain: 0.8, harness: 0.9 }, 2)!;
    // 10,000 points/s on 1.6 cores → 12,500 on 2; the baseline 30,000 on 1.7 → 35,294.
    expect(r).toMatchObject({ cores: 2, service_cores: 1.2, box_busy_share: 0.8, ceiling_points_per_s: 12_500 });
    expect(r.baseline?.ceiling_points_per_s).toBe(35_294);
    expect(r.ceiling_ratio).toBe(0.354);
    expect(cpuReport(10_000, undefined)).toBeNull();
    expect(cpuReport(10_000, { server: 1, serverMain: 1, harness: 1 }, undefined, undefined, 2)).toMatchObject({ baseline: null, ceiling_ratio: null, ceiling_points_per_s: 10_000, waiting_for_core: null });
    expect(cpuReport(10_000, { server: 1, serverMain: 1, harness: 1, waiting: { server: 0.456, serverMain: 0.2, harness: 0.1 } })!.waiting_for_core)
      .toEqual({ service: 0.46, service_main_thread: 0.2, harness: 0.1 });
  });
});
