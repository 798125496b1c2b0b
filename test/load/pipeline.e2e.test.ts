// A whole run, end to end over real HTTP, against the harness's stand-in service (fake-service.ts),
// which fires events with the oracle from the points it actually receives. A clean run must come
// out perfect, which proves that the points the oracle rebuilds are exactly the points that were
// sent, and that setup, signatures, delivery, message collection, matching and the report work;
// a run with injected faults must list each one. The real engine is test/load/ci-load.test.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeService, type FakeFaults } from '../../load-tests/fake-service.js';
import { parseOptions } from '../../load-tests/options.js';
import { runLoad } from '../../load-tests/orchestrator.js';
import type { LoadReport } from '../../load-tests/report.js';
import { DEFAULT_ZONES } from '../../load-tests/world.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'load-pipeline-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(name: string, faults: FakeFaults, extra: string[] = []): Promise<{ report: LoadReport; json: string; html: string }> {
  const fake = await startFakeService(DEFAULT_ZONES, faults);
  try {
    const o = parseOptions([
      '--url', fake.url, '--client-id', fake.clientId, '--client-secret', fake.clientSecret, '--webhook-secret', fake.webhookSecret,
      '--users', '80', '--geofences', '300', '--duration', '6', '--rate', '400', '--batch', '2', '--concurrency', '8',
      '--baseline-duration', '1', '--settle', '1.5', '--quiet-phones', '0.2', '--late-batches', '0.3', '--jitter', '0.2', '--stale', '0.05',
      '--dwell-tolerance-ms', '0', '--report', path.join(dir, `${name}.json`),
      // The stand-in service keeps circles only (fake-service.ts); shaped places meet the real engine (ci-load.e2e.test.ts).
      '--shape-share', '0', ...extra,
    ]);
    o.progress = 'off';
    const { report, files } = await runLoad(o);
    return { report, json: files!.json, html: files!.html };
  } finally {
    await fake.close();
  }
}

describe('a whole run against the stand-in service', () => {
  it('comes out perfect when the service fires exactly what the rules say, and writes both reports', async () => {
    const { report, json, html } = await run('clean', {});
    expect(report.events_expected).toBeGreaterThan(50);
    expect({ missed: report.missed, duplicates: report.duplicates, unexpected: report.unexpected, wrong: report.wrong_payload }).toEqual({ missed: 0, duplicates: 0, unexpected: 0, wrong: 0 });
    expect(report.events_matched).toBe(report.events_expected - report.ambiguous.expected);
    expect(report.signature_checked).toBe(true);
    expect(report.http_errors).toBe(0);
    expect(report.latency_ms.count).toBeGreaterThan(0);
    expect(report.baseline_points_per_s).toBeGreaterThan(0);
    expect(report.stale_points_ignored).toBeGreaterThan(0);
    // Several kinds of trigger fired, messages included.
    const kinds = Object.entries(report.events_by_kind).filter(([, k]) => k.matched > 0).map(([k]) => k);
    expect(kinds).toEqual(expect.arrayContaining(['enter', 'layer enter', 'enter message']));
    const onDisk = JSON.parse(await readFile(json, 'utf8')) as LoadReport;
    for (const field of ['users', 'geofences', 'duration_s', 'mode', 'requests', 'points', 'requests_per_s', 'points_per_s', 'baseline_requests_per_s',
      'ratio_to_baseline', 'events_expected', 'events_received', 'missed', 'duplicates', 'unexpected', 'latency_ms', 'http_errors', 'rss_mb_peak'] as const) {
      expect(onDisk).toHaveProperty(field);
    }
    expect(onDisk.latency_ms).toEqual(expect.objectContaining({ p50: expect.any(Number), p95: expect.any(Number), p99: expect.any(Number), max: expect.any(Number) }));
    const page = await readFile(html, 'utf8');
    expect(page).toContain('<svg');
    expect(page).toContain('Points per second over time');
    // Readable offline: nothing to fetch.
    expect(page).not.toMatch(/<script|<link|src="http|href="http/);
  }, 60_000);

  it('judges every event of a warm-up but measures throughput and latency after it only', async () => {
    const { report } = await run('warmup', {}, ['--warmup', '3', '--duration', '4']);
    expect({ missed: report.missed, duplicates: report.duplicates, unexpected: report.unexpected }).toEqual({ missed: 0, duplicates: 0, unexpected: 0 });
    expect(report.warmup_s).toBe(3);
    expect(report.duration_s).toBeGreaterThan(0);
    // Every accepted point is in the oracle and the timeline; the measured ones are the last four seconds'.
    expect(report.timeline.reduce((n, b) => n + b.points, 0)).toBe(report.points);
    expect(report.measured_points).toBeGreaterThan(0);
    expect(report.measured_points).toBeLessThan(report.points * 0.75);
    expect(report.points_per_s).toBeCloseTo(report.measured_points / report.duration_s, -1);
    expect(report.whole_run_points_per_s).toBeGreaterThan(0);
    // Events that arrived during the warm-up were judged too (the first seconds fire most).
    expect(report.timeline.slice(0, 3).reduce((n, b) => n + (b.events ?? 0), 0)).toBeGreaterThan(0);
    expect(report.latency_ms.count).toBeGreaterThan(0);
  }, 60_000);

  it('lists a dropped event as missed, a second event id as a duplicate, a retry as a retry, and a spurious callback as unexpected', async () => {
    const { report } = await run('faults', { drop: 1, duplicate: true, retry: true, spurious: true });
    // The first event is dropped; the duplicate, the retry and the spurious callback go with the second.
    expect(report.missed).toBe(1);
    expect(report.unexpected).toBe(1);
    expect(report.duplicates).toBe(1);
    expect(report.retries).toBeGreaterThanOrEqual(1);
    expect(report.lists.missed).toHaveLength(1);
    expect(report.lists.duplicates).toHaveLength(1);
    expect(report.lists.unexpected[0]).toMatchObject({ id: 'evt_spurious' });
    expect(report.goals[0].met).toBe(false);
  }, 60_000);
});
