// Why a firing went out late, from the times its record keeps: each kind with its numbers.
import { describe, expect, it } from 'vitest';
import { latenessOf, type LatenessRules } from '../../src/services/firing-lateness.js';
import type { FiringRecord } from '../../src/store/firings.js';

const T = Date.UTC(2026, 0, 5, 9, 0, 0);
const RULES: LatenessRules = { lateAfterMs: 60_000, dwellGraceMs: 30_000, dwellToleranceMs: 1_000 };

function firing(over: Partial<FiringRecord>): FiringRecord {
  return {
    event_id: 'u:t:p:enter:1', app_id: 'a', user_id: 'u', trigger_id: 't', place_id: 'p', layer_id: 'l', type: 'callback', triggered_on: 'enter',
    delay_s: 0, date: T, received_at: T + 200, attempts: 1, rounds: 1, status: 'delivered', delivered_at: T + 300, created_at: T, updated_at: T, ...over,
  };
}

describe('latenessOf', () => {
  it('on time: nothing', () => {
    expect(latenessOf(firing({}), RULES)).toBeUndefined();
  });

  it('a point that arrived ten minutes late', () => {
    expect(latenessOf(firing({ received_at: T + 600_000, delivered_at: T + 600_050 }), RULES)).toEqual({
      kind: 'point_late', late_s: 600.05, arrival_s: 600, delivery_s: 0.05, failed_attempts: 0,
    });
  });

  it('a dwell whose deadline passed while the service was down waited for the grace', () => {
    // A message firing goes out when it is stored.
    expect(latenessOf(firing({ type: 'message', delay_s: 300, received_at: T + 95_000, status: undefined, delivered_at: undefined, attempts: 0 }), RULES)).toEqual({
      kind: 'dwell_grace', late_s: 95, arrival_s: 95, grace_s: 30,
    });
  });

  it('a callback whose first attempts failed', () => {
    expect(latenessOf(firing({ attempts: 4, delivered_at: T + 200 + 180_000 }), RULES)).toEqual({
      kind: 'attempts_failed', late_s: 180.2, arrival_s: 0.2, delivery_s: 180, failed_attempts: 3,
    });
  });

  it('not yet delivered, gated or made by trigger/run: nothing to say yet', () => {
    expect(latenessOf(firing({ status: 'pending', delivered_at: undefined, received_at: T + 600_000 }), RULES)).toBeUndefined();
    expect(latenessOf(firing({ gate: 'rate_limit', received_at: T + 600_000 }), RULES)).toBeUndefined();
    expect(latenessOf(firing({ run: true, received_at: T + 600_000, delivered_at: T + 600_000 }), RULES)).toBeUndefined();
  });

  it('the threshold is the caller\'s', () => {
    expect(latenessOf(firing({ attempts: 2, delivered_at: T + 5_000 }), { ...RULES, lateAfterMs: 1_000 })).toMatchObject({ kind: 'attempts_failed', failed_attempts: 1 });
  });
});
