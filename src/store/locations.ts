// Where location points are kept: the last location of each user (always) and the history (when
// the application keeps it). Written by the trigger engine's host once a batch went through the
// engine, a whole batch at a time; read by location/last, location/history and engine seeding.
import type { LocationDoc } from './documents.js';
import { replaceOrInsert } from './replace-or-insert.js';
import type { Store } from './store.js';

const last = (store: Store) => store.collection<LocationDoc>('last_locations');

/**
 * Keeps the newest of `docs` per user as that user's last location (`_id` = user id), the later of
 * equal ones; an older point never replaces a newer one, whatever order batches are written in.
 */
export async function saveLastLocations(store: Store, docs: Iterable<LocationDoc>): Promise<void> {
  const newest = new Map<string, LocationDoc>();
  for (const d of docs) {
    const n = newest.get(d.user_id);
    if (!n || d.date >= n.date) newest.set(d.user_id, d);
  }
  if (newest.size === 0) return;
  // Callers build the documents with the user's id already (copied only when not).
  const latest = [...newest.values()].map((d) => (d._id === d.user_id ? d : { ...d, _id: d.user_id }));
  // Usually every user has an older last location, replaced in one bulk write; a first point is
  // inserted, and a newer one stays. One as old is replaced: the engine applies points of equal
  // time in arrival order (machines/README.md, "Order and time"), so the later one is the last.
  await replaceOrInsert(last(store), latest, (doc) => ({ _id: doc._id, date: { $lte: doc.date } }));
}

export async function addHistory(store: Store, docs: LocationDoc[]): Promise<void> {
  if (docs.length) await store.collection<LocationDoc>('locations').insertMany(docs);
}

export function lastLocationOf(store: Store, appId: string, userId: string): Promise<LocationDoc | null> {
  return last(store).findOne({ _id: userId, app_id: appId });
}

/** A deleted user's points: the last location and the history. */
export async function removeUserLocations(store: Store, appId: string, userId: string): Promise<void> {
  await last(store).deleteMany({ _id: userId, app_id: appId });
  await store.collection<LocationDoc>('locations').deleteMany({ app_id: appId, user_id: userId });
}
