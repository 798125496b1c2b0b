// The decision timeline (trigger/timeline, trigger/state's recent entries, the inspector): the
// engine's host writes the entries with the machines of the same batch, keeps each pair to its
// cap and retention sweeps the old ones. Implemented on SQLite (sqlite/timeline.ts) and MongoDB
// (mongodb/timeline.ts).
import type { PairKey, TimelineDoc, TimelineFilter, TimelineRow } from './documents.js';

export interface Timeline {
  add(rows: readonly TimelineRow[]): Promise<void>;
  /** A user's entries matching `filter`, newest first: the page `offset`, `limit`, and how many match in all. */
  ofUser(appId: string, userId: string, filter: TimelineFilter, page: { offset: number; limit: number }): Promise<{ entries: TimelineDoc[]; total: number }>;
  /** A trigger's entries across its users matching `filter` (its `trigger_id` ignored), newest first: the page and how many match. */
  ofTrigger(appId: string, triggerId: string, filter: TimelineFilter, page: { offset: number; limit: number }): Promise<{ entries: TimelineDoc[]; total: number }>;
  /** Whether the application has any entry of this trigger (a deleted trigger's stay readable while they last). */
  hasTrigger(appId: string, triggerId: string): Promise<boolean>;
  /** A user's newest entries of one trigger's pairs, at most `max`, newest first. */
  ofUserTrigger(appId: string, userId: string, triggerId: string, max: number): Promise<TimelineDoc[]>;
  /** Keeps the pair's newest `keep` entries. */
  trimPair(pair: PairKey, keep: number): Promise<void>;
  removeUser(userId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
  /** Retention: removes up to about `max` entries dated before `cutoff`, the earliest stored first; how many went. */
  removeDatedBefore(cutoff: number, max: number): Promise<number>;
}
