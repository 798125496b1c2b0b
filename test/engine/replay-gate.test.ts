// Replays in flight are bounded per application and in all: past either bound a replay is refused
// at once with a 429 in the error shape (and Retry-After), and a place given back is free again.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { ReplayGate } from '../../src/engine/replay-gate.js';

function refused(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('ReplayGate', () => {
  it('admits so many per application and so many in all, and no more until one leaves', () => {
    const gate = new ReplayGate(1, 2);
    const a = gate.enter('A');
    const tooManyOfA = refused(() => gate.enter('A'));
    expect(tooManyOfA.status).toBe(429);
    expect(tooManyOfA.body()).toMatchObject({ error_code: 429, error: 'too_many_requests', error_description: expect.stringMatching(/1 at a time/) });
    expect(tooManyOfA.headers['retry-after']).toMatch(/^\d+$/);
    const b = gate.enter('B');
    const full = refused(() => gate.enter('C'));
    expect(full.status).toBe(429);
    expect(full.description).toMatch(/running 2 replays/);
    expect([gate.inFlight(), gate.inFlight('A'), gate.inFlight('C')]).toEqual([2, 1, 0]);

    a();
    a(); // given back once only
    expect(gate.inFlight()).toBe(1);
    const c = gate.enter('C');
    expect(refused(() => gate.enter('A')).description).toMatch(/running 2 replays/);
    b();
    c();
    expect(gate.inFlight()).toBe(0);
    gate.enter('A');
  });
});
