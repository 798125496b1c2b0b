// location/history?batch=true and location/delete_batch/:id (reference §4.3): a history answer can
// be remembered as a batch, whose points one later call deletes, exactly those and once.
import { randomBytes } from 'node:crypto';
import { apiError, notFound } from '../errors.js';
import type { LocationBatchDoc, UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';

/** Remembers the points of a history answer; the id is what `batch` reports. */
export async function recordBatch(ctx: ServiceContext, user: UserDoc, pointIds: string[]): Promise<string> {
  const doc: LocationBatchDoc = { _id: randomBytes(20).toString('hex'), app_id: user.app_id, user_id: user._id, point_ids: pointIds, created_at: ctx.now() };
  await ctx.store.locationBatches.insert(doc);
  return doc._id;
}

/** Deletes the batch's points of the user's history; a second call is 304 not_modified. */
export async function deleteBatch(ctx: ServiceContext, user: UserDoc, batchId: string) {
  const batch = await ctx.store.locationBatches.get(user.app_id, user._id, batchId);
  if (!batch) throw notFound('Batch');
  if (batch.deleted_at !== undefined) throw apiError('not_modified', 'This batch was already deleted');
  const deleted = await ctx.store.locations.remove(user.app_id, user._id, batch.point_ids);
  await ctx.store.locationBatches.markDeleted(user.app_id, batch._id, ctx.now());
  return { deleted };
}
