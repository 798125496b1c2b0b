// Seeded randomness for the load harness. Every random choice (world, tracks, GPS noise) comes from
// a generator keyed by (seed, purpose, indices), so the same seed rebuilds the same run and any one
// point can be regenerated on its own: the oracle recomputes points instead of storing them.
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';

/** murmur3's finaliser: spreads nearby keys (user 1, user 2) over unrelated seeds. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit key from a run seed and any list of integers or short strings. */
export function mixKey(seed: number, ...parts: Array<number | string>): number {
  let h = fmix32((seed | 0) ^ 0x9e3779b9);
  for (const part of parts) {
    if (typeof part === 'number') {
      // Integers up to 2^53: fold both halves in.
      h = fmix32(h ^ (part >>> 0));
      h = fmix32(h ^ Math.floor(part / 0x1_0000_0000));
    } else {
      for (let i = 0; i < part.length; i++) h = fmix32(h ^ part.charCodeAt(i));
    }
  }
  return h;
}

export class Rng {
  private readonly gen: RandomGenerator;

  constructor(seed: number, ...parts: Array<number | string>) {
    this.gen = xoroshiro128plus(mixKey(seed, ...parts) | 0);
  }

  /** [0, 1) */
  next(): number {
    return uniformFloat64(this.gen);
  }

  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Index drawn with the given (not necessarily normalised) weights. */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((a, b) => a + b, 0);
    let x = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i];
      if (x < 0) return i;
    }
    return weights.length - 1;
  }

  /** Standard normal (Box–Muller). */
  gaussian(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
