// Presets for the goals of issue 4 (`--scenario NAME`); options given on the command line after
// the preset override it. Some scenarios are two runs, the second derived from the first.
import type { LoadReport } from './report.js';

export interface Scenario {
  description: string;
  steps: Array<{ name: string; args: (previous: LoadReport[]) => string[] }>;
  summarize?: (reports: LoadReport[]) => string | undefined;
}

export const SCENARIOS: Record<string, Scenario> = {
  ci: {
    description: 'the CI-sized correctness run (a few hundred users, some seconds); test/load/ci-load.test.ts runs it',
    steps: [{
      name: 'run',
      args: () => [
        '--users', '250', '--geofences', '500', '--duration', '12', '--rate', '750', '--batch', '3', '--concurrency', '12',
        '--baseline-duration', '2', '--settle', '2', '--quiet-phones', '0.1', '--late-batches', '0.2', '--jitter', '0.15', '--stale', '0.02',
        '--seed', '4', '--max-runtime', '150',
      ],
    }],
  },
  'single-2000': {
    description: 'single-point mode, 2,000 users and 2,000 geofences, unthrottled: ratio_to_baseline ≥ 0.7',
    steps: [{ name: 'run', args: () => ['--users', '2000', '--geofences', '2000', '--duration', '60', '--batch', '1', '--concurrency', '64', '--baseline-duration', '20'] }],
  },
  'batch-50': {
    description: 'batched mode, 50 points a request, unthrottled: ≥ 100,000 points/s',
    steps: [{ name: 'run', args: () => ['--users', '2000', '--geofences', '2000', '--duration', '60', '--batch', '50', '--concurrency', '32', '--baseline-duration', '20'] }],
  },
  'latency-half': {
    description: 'an unthrottled single-point run, then one at half its throughput: callback latency p99 ≤ 100 ms',
    steps: [
      { name: 'max', args: () => ['--users', '2000', '--geofences', '2000', '--duration', '30', '--batch', '1', '--concurrency', '64', '--baseline-duration', '0'] },
      { name: 'half', args: (prev) => ['--users', '2000', '--geofences', '2000', '--duration', '60', '--batch', '1', '--concurrency', '64', '--baseline-duration', '0', '--rate', String(Math.max(1, Math.round(prev[0].points_per_s / 2)))] },
    ],
    summarize: (r) => (r.length === 2 ? `latency-half: max ${r[0].points_per_s} points/s; at ${r[1].rate_target_pps} points/s callback p99 = ${r[1].latency_ms.p99 ?? '—'} ms (goal ≤ 100)` : undefined),
  },
  'geofence-scaling': {
    description: 'batched runs with 1,000 and with 100,000 geofences (mostly bulk-layer places, cheap to create): throughput ratio ≥ 0.9',
    steps: [
      { name: '1k', args: () => ['--users', '2000', '--geofences', '1000', '--duration', '60', '--batch', '50', '--concurrency', '32', '--baseline-duration', '0', '--filler-share', '0.9'] },
      { name: '100k', args: () => ['--users', '2000', '--geofences', '100000', '--duration', '60', '--batch', '50', '--concurrency', '32', '--baseline-duration', '0', '--filler-share', '0.9', '--setup-concurrency', '32'] },
    ],
    summarize: (r) => (r.length === 2 && r[0].points_per_s > 0 ? `geofence-scaling: ${r[1].points_per_s} / ${r[0].points_per_s} points/s = ${(r[1].points_per_s / r[0].points_per_s).toFixed(3)} (goal ≥ 0.9)` : undefined),
  },
};
