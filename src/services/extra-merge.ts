// `extra` on an update (place, layer, trigger, user) merges its top-level keys into the stored hash,
// a key sent as null removing it: MapAttack sets {active, team} on a place it captures and later
// reads extra.points, set earlier. One path per key (`extra.<key>`), so that two updates at once
// each keep their keys. Nested values are replaced whole, as sent.
import type { Extra } from '../store/documents.js';

export interface ExtraChange {
  set: Record<string, unknown>;
  unset: string[];
}

export function mergeExtra(sent: Extra, current: Extra | undefined): ExtraChange {
  const change: ExtraChange = { set: {}, unset: [] };
  const keys = Object.keys(sent);
  // An empty key has no path, nor has a key of a stored value that is not a hash: the merged hash is written whole.
  if (keys.includes('') || current === null || typeof current !== 'object' || Array.isArray(current)) {
    const merged: Extra = { ...(current !== null && typeof current === 'object' && !Array.isArray(current) ? current : {}) };
    for (const k of keys) {
      if (sent[k] === null) delete merged[k];
      else merged[k] = sent[k];
    }
    change.set.extra = merged;
    return change;
  }
  for (const k of keys) {
    if (sent[k] === null) change.unset.push(`extra.${k}`);
    else change.set[`extra.${k}`] = sent[k];
  }
  return change;
}
