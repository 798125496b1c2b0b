// The harness's CPU account: the ceiling the box could reach at the CPU per point a run measured,
// and its ratio to the baseline's. (Measuring a live process's shares from /proc depends on the
// load of the machine, so it is checked by running the harness, not asserted here.)
import { describe, expect, it } from 'vitest';
import { cpuReport } from '../../load-tests/cpu-budget.js';

describe('cpu report', () => {
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
