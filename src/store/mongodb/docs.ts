// What every MongoDB repository shares: the changes of an update as the driver's operators, and
// the indexes of the typed collections (indexes.ts DOCUMENT_TABLES), created at open.
import type { Db, Document, UpdateFilter } from 'mongodb';
import { changesNothing, type Changes } from '../changes.js';
import type { TableShape } from '../indexes.js';

/** `$set` and `$unset` of the changes; `extra` keys one path each. Null when they change nothing. */
export function updateOf<T extends Document>(c: Changes<T>): UpdateFilter<T> | null {
  if (changesNothing(c)) return null;
  const $set: Record<string, unknown> = { ...c.set };
  const $unset: Record<string, ''> = {};
  for (const k of c.unset ?? []) $unset[k] = '';
  if (c.extra) {
    for (const [k, v] of Object.entries(c.extra.set)) $set[`extra.${k}`] = v;
    for (const k of c.extra.unset) $unset[`extra.${k}`] = '';
  }
  const update: Record<string, unknown> = {};
  if (Object.keys($set).length > 0) update.$set = $set;
  if (Object.keys($unset).length > 0) update.$unset = $unset;
  return update as UpdateFilter<T>;
}

export async function ensureMongoIndexes(db: Db, tables: Readonly<Record<string, TableShape>>): Promise<void> {
  for (const [name, shape] of Object.entries(tables)) {
    if (shape.indexes.length === 0) continue;
    await db.collection(name).createIndexes(shape.indexes.map((i) => ({
      key: Object.fromEntries(i.on.map((f) => [f, 1 as const])),
      unique: i.unique ?? false,
      sparse: i.sparse ?? false,
    })));
  }
}
