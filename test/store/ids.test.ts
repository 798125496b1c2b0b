// Public ids: opaque base64url, and never with a leading '-' (a shell would take it for an option).
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/store/ids.js';

describe('newId', () => {
  it('gives distinct 8-character base64url ids that never begin with "-"', () => {
    const ids = Array.from({ length: 20_000 }, newId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{7}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // About 1 in 64 raw ids begins with '-': 20,000 draws without one is no accident.
    expect(ids.some((id) => id.includes('-'))).toBe(true);
  });
});
