// A number written as text is read only when it is a plain decimal: an optional sign, digits, an
// optional fraction and an optional exponent. Number() also reads " " (0), "0x1A" (26), "0b11",
// "0o7" and padded text (" 45 "), which no client means as a coordinate, a radius or a count.
export const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The finite number `text` writes in plain decimal, else undefined. */
export function decimalNumber(text: string): number | undefined {
  if (!DECIMAL.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}
