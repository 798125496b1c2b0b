// The plain-decimal rule for numbers sent as text (schemas/decimal.ts): what it reads, what it
// refuses, and that a long run of digits is refused in linear time (the first version backtracked
// quadratically: a million digits and an "x" held the event loop for hours).
import { describe, expect, it } from 'vitest';
import { decimalNumber } from '../../src/schemas/decimal.js';

describe('decimalNumber', () => {
  it.each([
    ['45', 45], ['-45.5', -45.5], ['+45.25', 45.25], ['45.', 45], ['-.5', -0.5], ['1.5e2', 150], ['1E-2', 0.01], ['007', 7],
  ])('reads %j as %d', (text, n) => expect(decimalNumber(text)).toBe(n));

  it.each(['', ' ', '.', '+', '1e', '0x1A', '0b11', '0o7', ' 45', '45 ', '45\n', '1_000', '1..2', 'Infinity', '1e999', '--1'])(
    'refuses %j', (text) => expect(decimalNumber(text)).toBeUndefined(),
  );

  it('refuses a million digits followed by a letter at once, and reads a million digits as a number', () => {
    const digits = '1'.repeat(1_000_000);
    expect(decimalNumber(`${digits}x`)).toBeUndefined();
    expect(decimalNumber(`${digits}.5e`)).toBeUndefined();
    // Finite? A million digits is beyond a double: Infinity, so refused as well.
    expect(decimalNumber(digits)).toBeUndefined();
    expect(decimalNumber(`0.${digits}`)).toBeCloseTo(0.111111, 5);
  });
});
