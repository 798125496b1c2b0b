// `extra` on an update (place, layer, trigger, user) merges its top-level keys into the stored hash,
// a key sent as null removing it: MapAttack sets {active, team} on a place it captures and later
// reads extra.points, set earlier. The store changes one key at a time (Changes.extra), so that two
// updates at once each keep their keys. Nested values are replaced whole, as sent.
import type { ExtraKeys } from '../store/changes.js';
import type { Extra } from '../store/documents.js';

/** Either the keys to change, or (an empty key, or a stored value that is not a hash) the merged hash whole. */
export type ExtraChange = { keys: ExtraKeys; whole?: undefined } | { whole: Extra; keys?: undefined };

export function mergeExtra(sent: Extra, current: Extra | undefined): ExtraChange {
  const keys = Object.keys(sent);
  // An empty key has no path, nor has a key of a stored value that is not a hash: the merged hash is written whole.
  if (keys.includes('') || current === null || typeof current !== 'object' || Array.isArray(current)) {
    const merged: Extra = { ...(current !== null && typeof current === 'object' && !Array.isArray(current) ? current : {}) };
    for (const k of keys) {
      if (sent[k] === null) delete merged[k];
      else merged[k] = sent[k];
    }
    return { whole: merged };
  }
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const k of keys) {
    if (sent[k] === null) unset.push(k);
    else set[k] = sent[k];
  }
  return { keys: { set, unset } };
}
