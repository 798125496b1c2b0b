// The CI-sized load run: the real service (src/server.ts, embedded store, its worker threads)
// started on a free port, a few hundred simulated phones for some seconds with quiet phones, late
// batches, boundary jitter and stale points, every event compared with the oracle. Any missed,
// duplicated, unexpected or wrongly-shaped event fails it, with the report's lists in the message.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOptions } from '../../load-tests/options.js';
import { runLoad } from '../../load-tests/orchestrator.js';
import { SCENARIOS } from '../../load-tests/scenarios.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ci-load-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('CI load run against the real service', () => {
  it('fires every expected event once and nothing else', async () => {
    const args = SCENARIOS.ci.steps[0].args([]);
    const options = { ...parseOptions([...args, '--report', path.join(dir, 'ci.json')]), scenario: 'ci', progress: 'off' as const };
    const { report } = await runLoad(options);
    const problems = JSON.stringify({ http: report.http_error_samples.slice(0, 3), callbacks: report.callback_problem_samples.slice(0, 3), ...report.lists, notes: report.notes }, null, 1).slice(0, 6000);
    expect(report.events_expected, 'the run produced too few events to mean anything').toBeGreaterThan(300);
    expect(report.http_errors, problems).toBe(0);
    expect({ missed: report.missed, duplicates: report.duplicates, unexpected: report.unexpected, wrong_payload: report.wrong_payload }, problems)
      .toEqual({ missed: 0, duplicates: 0, unexpected: 0, wrong_payload: 0 });
    // Most of the run was judged: pairs that could go either way stay a small minority.
    expect(report.ambiguous.expected + report.ambiguous.received).toBeLessThan(report.events_expected * 0.05);
  }, 170_000);
});
