// What the report says would close an unmet throughput goal, from the run's own CPU figures.
import { describe, expect, it } from 'vitest';
import type { CpuReport } from '../../load-tests/cpu-budget.js';
import { goalGap } from '../../load-tests/goal-gap.js';

const cpu = (o: Partial<CpuReport> = {}): CpuReport => ({
  cores: 2, service_cores: 1.0, service_main_thread: 0.7, harness_cores: 0.5, box_busy_share: 0.75, ceiling_points_per_s: 13_333,
  baseline: null, ceiling_ratio: null, waiting_for_core: null, service_threads: null, ...o,
});

describe('goal gap', () => {
  it('gives the CPU per point that would reach the target, as busy as this run and with every core busy', () => {
    // 10,000 points/s on 1 service core and 0.5 harness core: 100 µs and 50 µs per point.
    const g = goalGap(21_000, 10_000, cpu())!;
    expect(g).toMatchObject({ target_points_per_s: 21_000, service_us_per_point: 100, service_main_us_per_point: 70, harness_us_per_point: 50 });
    // 0.75 × 2 cores / 21,000 points/s = 71.4 µs of box per point, less the harness's 50.
    expect(g.budget_us_at_this_busy_share).toBe(21.4);
    expect(g.cut_at_this_busy_share).toBeCloseTo(0.786, 3);
    // 2 cores / 21,000 = 95.2 µs, less 50.
    expect(g.budget_us_with_every_core_busy).toBe(45.2);
    expect(g.cut_with_every_core_busy).toBeCloseTo(0.548, 3);
    expect(g.summary).toContain('21000 points/s needs the service at 21.4 µs');
    expect(g.summary).toContain('55 % less at best by spreading the work');
  });

  it('says when no service change can reach the target because the harness alone does not fit', () => {
    const g = goalGap(100_000, 10_000, cpu())!;
    expect(g.budget_us_with_every_core_busy).toBeNull();
    expect(g.cut_with_every_core_busy).toBeNull();
    expect(g.summary).toContain('no service change (the harness alone does not fit)');
  });

  it('names the largest areas of a CPU profile, and nothing without CPU figures', () => {
    const profile = { by_area: [{ area: 'src/store', ms: 10, share: 31.5 }, { area: 'package fastify', ms: 5, share: 12 }] };
    const g = goalGap(21_000, 10_000, cpu(), profile)!;
    expect(g.top_areas).toEqual([{ area: 'src/store', percent: 31.5 }, { area: 'package fastify', percent: 12 }]);
    expect(g.summary).toContain('largest areas of the profile: src/store 31.5 %, package fastify 12 %');
    expect(goalGap(21_000, 10_000, null)).toBeUndefined();
    expect(goalGap(21_000, 0, cpu())).toBeUndefined();
  });
});
