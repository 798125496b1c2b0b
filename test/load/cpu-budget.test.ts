// The harness's CPU account: the cores a server process and the harness used during a phase (read
// from /proc for a real busy child), and the ceiling the box could reach at that CPU per point.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
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
    // One spinning thread: close to a core (the box may be shared), far above an idle process.
    expect(share.server).toBeGreaterThan(0.5);
    expect(share.server).toBeLessThan(1.3);
    expect(share.serverMain).toBeGreaterThan(0.5);
    expect(share.harness).toBeLessThan(0.5);
  });

  it('gives the ceiling at the measured CPU per point, and its ratio to the baseline', () => {
    const r = cpuReport(10_000, { server: 1.2, serverMain: 0.99, harness: 0.4 }, 30_000, { server: 0.8, serverMain: 0.8, harness: 0.9 }, 2)!;
    // 10,000 points/s on 1.6 cores → 12,500 on 2; the baseline 30,000 on 1.7 → 35,294.
    expect(r).toMatchObject({ cores: 2, service_cores: 1.2, box_busy_share: 0.8, ceiling_points_per_s: 12_500 });
    expect(r.baseline?.ceiling_points_per_s).toBe(35_294);
    expect(r.ceiling_ratio).toBe(0.354);
    expect(cpuReport(10_000, undefined)).toBeNull();
    expect(cpuReport(10_000, { server: 1, serverMain: 1, harness: 1 }, undefined, undefined, 2)).toMatchObject({ baseline: null, ceiling_ratio: null, ceiling_points_per_s: 10_000 });
  });
});
