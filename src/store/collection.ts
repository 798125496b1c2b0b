// The small collection interface every repository is written against. It is a subset of the
// official driver's `Collection<T>` (a real Collection is assignable to it, checked below), so the
// MongoDB engine passes `db.collection(name)` through untouched and the embedded engine implements
// the same calls on SQLite.
import type { Collection, Document, Filter, Sort, UpdateFilter } from 'mongodb';
import type { WriteHealth } from './store-errors.js';

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  projection?: Document;
}

export interface UpdateResultLike {
  matchedCount: number;
  modifiedCount: number;
  upsertedCount: number;
}

/**
 * A whole-document replacement in a bulkWrite. No upsert: a bulk of upserts whose filter also
 * tests a field fails per document with a duplicate key on MongoDB, which callers would have to
 * pick apart; callers insert what did not match instead.
 */
export interface ReplaceOneOp<T> {
  replaceOne: { filter: Filter<T>; replacement: T; upsert?: false };
}

export interface DocCollection<T extends { _id: string }> {
  insertOne(doc: T): Promise<unknown>;
  insertMany(docs: T[]): Promise<unknown>;
  findOne(filter: Filter<T>, options?: { projection?: Document }): Promise<T | null>;
  find(filter: Filter<T>, options?: FindOptions): { toArray(): Promise<T[]> };
  countDocuments(filter: Filter<T>): Promise<number>;
  updateOne(filter: Filter<T>, update: UpdateFilter<T>, options?: { upsert?: boolean }): Promise<UpdateResultLike>;
  updateMany(filter: Filter<T>, update: UpdateFilter<T>): Promise<UpdateResultLike>;
  /** Many replacements in one call (one file write on the embedded engine). */
  bulkWrite(operations: ReplaceOneOp<T>[], options?: { ordered?: boolean }): Promise<{ matchedCount: number }>;
  deleteOne(filter: Filter<T>): Promise<{ deletedCount: number }>;
  deleteMany(filter: Filter<T>): Promise<{ deletedCount: number }>;
}

export interface IndexSpec {
  /** Field order matters for MongoDB; the embedded engine indexes the same fields. */
  fields: string[];
  unique?: boolean;
  sparse?: boolean;
}

/** What an engine provides: named collections plus index creation and shutdown. */
export interface StoreEngine {
  readonly kind: 'embedded' | 'mongodb';
  collection<T extends { _id: string }>(name: string): DocCollection<T>;
  ensureIndexes(name: string, specs: IndexSpec[]): Promise<void>;
  /** Whether writes are going through (/health). */
  health(): WriteHealth;
  close(): Promise<void>;
}

// Compile-time proof that the interface is a subset of the driver's Collection: if the driver's
// signatures drift, this stops compiling.
type Probe = { _id: string; n: number; tags: string[] };
export const _driverSubsetProof = (c: Collection<Probe>): DocCollection<Probe> => c;
