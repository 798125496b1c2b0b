// What an update of a stored object changes, in the store's terms: fields set, fields removed, and
// keys of its `extra` hash set or removed one by one (services/extra-merge.ts), so that two updates
// at once each keep their keys. Both engines apply the same value: SQLite in the one step that reads
// and writes the row, MongoDB as $set and $unset.
export interface ExtraKeys {
  set: Readonly<Record<string, unknown>>;
  unset: readonly string[];
}

export interface Changes<T> {
  set?: Partial<T>;
  unset?: ReadonlyArray<keyof T & string>;
  extra?: ExtraKeys;
}

export function changesNothing<T>(c: Changes<T>): boolean {
  return Object.keys(c.set ?? {}).length === 0 && (c.unset?.length ?? 0) === 0 && !c.extra;
}

/** The document with the changes made (a copy: `doc` is left as it was). */
export function applyChanges<T extends object>(doc: T, c: Changes<T>): T {
  const out = { ...doc, ...c.set } as Record<string, unknown>;
  for (const k of c.unset ?? []) delete out[k];
  if (c.extra) {
    const current = out.extra;
    const extra: Record<string, unknown> = current !== null && typeof current === 'object' && !Array.isArray(current) ? { ...current } : {};
    Object.assign(extra, c.extra.set);
    for (const k of c.extra.unset) delete extra[k];
    out.extra = extra;
  }
  return out as T;
}
