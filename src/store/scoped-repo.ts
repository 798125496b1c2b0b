// Repositories of application-owned documents. Every read and write is scoped by app_id, so an
// object of another application is, to the caller, exactly a missing one.
import type { Filter, UpdateFilter } from 'mongodb';
import type { DocCollection, FindOptions } from './collection.js';
import { DuplicateKeyError, isDuplicateKeyError } from './duplicate-key.js';

export { DuplicateKeyError };

export interface Page<T> {
  items: T[];
  total: number;
}

export class ScopedRepo<T extends { _id: string; app_id: string }> {
  constructor(readonly col: DocCollection<T>) {}

  /** Inserts; a unique-index violation becomes DuplicateKeyError (the store enforces uniqueness). */
  async insert(doc: T): Promise<T> {
    try {
      await this.col.insertOne(doc);
      return doc;
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new DuplicateKeyError(String((err as Error).message));
      throw err;
    }
  }

  get(appId: string, id: string): Promise<T | null> {
    return this.col.findOne({ _id: id, app_id: appId } as Filter<T>);
  }

  findOne(appId: string, filter: Filter<T>): Promise<T | null> {
    return this.col.findOne({ ...filter, app_id: appId } as Filter<T>);
  }

  list(appId: string, filter: Filter<T> = {}, options: FindOptions = {}): Promise<T[]> {
    return this.col.find({ ...filter, app_id: appId } as Filter<T>, options).toArray();
  }

  async page(appId: string, filter: Filter<T>, options: FindOptions): Promise<Page<T>> {
    const scoped = { ...filter, app_id: appId } as Filter<T>;
    const [items, total] = await Promise.all([this.col.find(scoped, options).toArray(), this.col.countDocuments(scoped)]);
    return { items, total };
  }

  count(appId: string, filter: Filter<T> = {}): Promise<number> {
    return this.col.countDocuments({ ...filter, app_id: appId } as Filter<T>);
  }

  /** Applies `$set`/`$unset` and returns the updated document, or null when it is not the app's. */
  async update(appId: string, id: string, update: UpdateFilter<T>): Promise<T | null> {
    try {
      const res = await this.col.updateOne({ _id: id, app_id: appId } as Filter<T>, update);
      if (res.matchedCount === 0) return null;
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new DuplicateKeyError(String((err as Error).message));
      throw err;
    }
    return this.get(appId, id);
  }

  async remove(appId: string, id: string): Promise<boolean> {
    const res = await this.col.deleteOne({ _id: id, app_id: appId } as Filter<T>);
    return res.deletedCount > 0;
  }

  async removeWhere(appId: string, filter: Filter<T>): Promise<number> {
    const res = await this.col.deleteMany({ ...filter, app_id: appId } as Filter<T>);
    return res.deletedCount;
  }
}
