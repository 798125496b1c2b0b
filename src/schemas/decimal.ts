// A number written as text is read only when it is a plain decimal: an optional sign, digits, an
// optional fraction and an optional exponent. Number() also reads " " (0), "0x1A" (26), "0b11",
// "0o7" and padded text (" 45 "), which no client means as a coordinate, a radius or a count.
// Each digit run can be matched one way only (`\d+(?:\.\d*)?`, not `\d+\.?\d*`): with two ways, a
// long run of digits that fails at its end made V8 backtrack quadratically (a million digits and
// an "x", sent without credentials, held the event loop for hours).
export const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The finite number `text` writes in plain decimal, else undefined. */
export function decimalNumber(text: string): number | undefined {
  if (!DECIMAL.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}
