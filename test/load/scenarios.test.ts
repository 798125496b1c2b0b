// `--repeat`: the scenario's steps in alternating rounds, report files named by step and round, and
// the goal's figure summarised over the rounds.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOptions, UsageError } from '../../load-tests/options.js';
import type { LoadReport } from '../../load-tests/report.js';
import { planRuns, roundsSummary, SCENARIOS } from '../../load-tests/scenarios.js';

const plan = (argv: string[]) => planRuns(argv, parseOptions(argv));
const report = (over: Partial<LoadReport>) => ({ missed: 0, duplicates: 0, unexpected: 0, points_per_s: 0, ratio_to_baseline: null, ...over }) as LoadReport;

describe('planRuns', () => {
  it('alternates the steps of a scenario round by round, each round with its own report files', () => {
    const runs = plan(['--scenario', 'geofence-scaling', '--repeat', '2', '--duration', '5']);
    expect(runs.map((r) => [r.round, r.step])).toEqual([[1, '1k'], [1, '100k'], [2, '1k'], [2, '100k']]);
    const made = runs.map((r) => r.make([]));
    expect(made.map((o) => o.geofences)).toEqual([1000, 100000, 1000, 100000]);
    // Options after the preset still win.
    expect(made.every((o) => o.durationS === 5 && o.repeat === 2)).toBe(true);
    expect(made.map((o) => o.report)).toEqual(['1k-r1', '100k-r1', '1k-r2', '100k-r2'].map((s) => path.join('load-tests', 'reports', `geofence-scaling-${s}.json`)));
    expect(made.map((o) => o.scenario)).toEqual(['geofence-scaling/1k#1', 'geofence-scaling/100k#1', 'geofence-scaling/1k#2', 'geofence-scaling/100k#2']);
  });

  it('gives the goal scenarios a 30 s warm-up before their measured seconds, and the CI run none', () => {
    for (const name of ['single-2000', 'batch-50', 'latency-half', 'geofence-scaling']) {
      const made = plan(['--scenario', name]).map((r) => r.make([report({ points_per_s: 9000 })]));
      expect(made.every((o) => o.warmupS === 30)).toBe(true);
    }
    expect(plan(['--scenario', 'ci'])[0]!.make([]).warmupS).toBe(0);
    // A warm-up given after the preset wins, as any option does.
    expect(plan(['--scenario', 'batch-50', '--warmup', '0'])[0]!.make([]).warmupS).toBe(0);
  });

  it('without --repeat names files as before, and a --report names the scenario’s files', () => {
    const runs = plan(['--scenario', 'single-2000', '--report', '/tmp/s.json']);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.make([])).toMatchObject({ report: '/tmp/s-run.json', scenario: 'single-2000/run', batch: 1, baselineDurationS: 20, floorDurationS: 20 });
    expect(plan(['--scenario', 'single-2000'])[0]!.make([]).report).toBe(path.join('load-tests', 'reports', 'single-2000-run.json'));
  });

  it('sweeps batch-50 over the connection counts and takes the best as its figure', () => {
    const made = plan(['--scenario', 'batch-50', '--report', '/tmp/b.json']).map((r) => r.make([]));
    expect(made.map((o) => [o.concurrency, o.batch, o.report])).toEqual([64, 128, 192, 256].map((c) => [c, 50, `/tmp/b-c${c}.json`]));
    const sweep = [41_000, 48_500, 51_200, 47_900].map((p) => report({ points_per_s: p }));
    expect(SCENARIOS['batch-50']!.figure.of(sweep)).toBe(51_200);
    expect(SCENARIOS['batch-50']!.summarize!(sweep)).toBe(
      'batch-50: 41000 points/s at 64, 48500 points/s at 128, 51200 points/s at 192, 47900 points/s at 256 connections; best 51200 (goal ≥ 100000)',
    );
  });

  it('a later step of a round is derived from that round’s reports', () => {
    const runs = plan(['--scenario', 'latency-half', '--repeat', '2']);
    const half = runs[3]!.make([report({ points_per_s: 8000 })]);
    expect(half.ratePps).toBe(4000);
    // Only this step is judged against the latency goal, as half of the round's maximum.
    expect(half.halfOfPps).toBe(8000);
    expect(runs[2]!.make([]).halfOfPps).toBeUndefined();
  });

  it('repeats a run given by options alone', () => {
    const runs = plan(['--users', '10', '--repeat', '3', '--report', 'x.json']);
    expect(runs.map((r) => r.make([]).report)).toEqual(['x-r1.json', 'x-r2.json', 'x-r3.json']);
    expect(plan(['--users', '10', '--report', 'x.json'])[0]!.make([]).report).toBe('x.json');
  });

  it('refuses a repeat count out of range', () => {
    expect(() => parseOptions(['--repeat', '0'])).toThrow(UsageError);
    expect(() => parseOptions(['--repeat', '1.5'])).toThrow(/whole number/);
  });
});

describe('roundsSummary', () => {
  it('gives each round’s figure with the mean, lowest and highest', () => {
    const rounds = [[10_000, 9_100], [10_000, 8_300], [11_000, 10_450]].map(([a, b]) => [report({ points_per_s: a }), report({ points_per_s: b })]);
    expect(roundsSummary('geofence-scaling', rounds)).toBe(
      'geofence-scaling over 3 rounds, 100k / 1k throughput: 0.910, 0.830, 0.950; mean 0.897, lowest 0.830, highest 0.950 (goal ≥ 0.9)',
    );
  });

  it('says nothing for one round, and marks a round without a figure', () => {
    expect(roundsSummary('batch-50', [[report({ points_per_s: 1 })]])).toBeUndefined();
    expect(roundsSummary('single-2000', [[report({ ratio_to_baseline: 0.35 })], [report({ ratio_to_baseline: null })]]))
      .toBe('single-2000 over 2 rounds, ratio_to_baseline: 0.350, —; mean 0.350, lowest 0.350, highest 0.350 (goal ≥ 0.7)');
    expect(roundsSummary(undefined, [[report({ points_per_s: 50_123 })], [report({ points_per_s: 49_877.4 })]]))
      .toBe('runs over 2 rounds, points/s: 50123, 49877; mean 50000, lowest 49877, highest 50123');
  });
});
