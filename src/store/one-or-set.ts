// A value or, from the second one on, a Set of them: the slot of a key in an index whose keys
// mostly have one entry (ids, event ids, a trigger's one geofence). A Set per key was a heap object
// or two each for the garbage collector to mark, for nothing. Values must not be Sets themselves.

export type OneOrSet<T> = T | Set<T>;

/** The slot with `value` added (the same Set, grown, once there is one). */
export function withValue<T>(slot: OneOrSet<T> | undefined, value: T): OneOrSet<T> {
  if (slot === undefined) return value;
  if (slot instanceof Set) return slot.add(value);
  return slot === value ? slot : new Set([slot, value]);
}

/** The slot without `value`: undefined once empty, the last value itself once one is left. */
export function withoutValue<T>(slot: OneOrSet<T> | undefined, value: T): OneOrSet<T> | undefined {
  if (slot === undefined || slot === value) return undefined;
  if (!(slot instanceof Set)) return slot;
  slot.delete(value);
  if (slot.size > 1) return slot;
  return slot.size === 1 ? (slot.values().next().value as T) : undefined;
}

export function valuesOf<T>(slot: OneOrSet<T> | undefined): T[] {
  if (slot === undefined) return [];
  return slot instanceof Set ? [...slot] : [slot];
}
