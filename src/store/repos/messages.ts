// The repositories of what goes to a user's phone: stored messages (message/list, the live
// stream's queue, a trigger message's delivery) and message/device payloads waiting for a stream;
// and the dwell clock's record of service starts.
import type { DeviceMessageDoc, MessageDoc } from '../documents.js';
import type { Page, PageRequest } from '../paging.js';

/** Where a page of the stream's queue starts: after this message (date, then id). */
export type QueueCursor = Pick<MessageDoc, 'date' | '_id'>;

export interface MessageRepo {
  /** A taken id (a replayed firing, or another application's) is a DuplicateKeyError. */
  insert(doc: MessageDoc): Promise<void>;
  /** Stores each message whose id is free, in one write: the ids that were taken already (of any application). */
  insertNew(docs: readonly MessageDoc[]): Promise<Set<string>>;
  get(appId: string, id: string): Promise<MessageDoc | null>;
  /** When each of these messages was delivered (undefined: not yet); another application's are absent. */
  deliveredAt(appId: string, ids: readonly string[]): Promise<Map<string, number | undefined>>;
  /** The user's messages, newest first (message/list). */
  page(appId: string, userId: string, page: PageRequest): Promise<Page<MessageDoc>>;
  /**
   * The stream's queue, oldest first (date, then id), after `after`, at most `max`: the user's
   * messages undelivered at `since` (not delivered, or delivered at or after it).
   */
  queue(appId: string, userId: string, since: number, after: QueueCursor | undefined, max: number): Promise<MessageDoc[]>;
  /** Undelivered messages of any of `userIds`, of any application, oldest first, at most `max` (the MongoDB poll). */
  undelivered(userIds: readonly string[], max: number): Promise<MessageDoc[]>;
  /** Marks it delivered unless it already is (two sockets racing mark it once): whether this call did. */
  markDelivered(appId: string, id: string, at: number): Promise<boolean>;
  /** The push providers were handed it. */
  markPushed(appId: string, id: string, at: number): Promise<void>;
  /** When each of these triggers first left the user a message. */
  firstByTrigger(appId: string, userId: string, triggerIds: readonly string[]): Promise<Map<string, number>>;
  /** The dates of the application's messages sent through the API (not by triggers). */
  sentDates(appId: string): Promise<number[]>;
  removeForUser(appId: string, userId: string): Promise<void>;
  /** Removes up to `max` messages dated before `cutoff` (retention): how many went. */
  removeDatedBefore(cutoff: number, max: number): Promise<number>;
  removeForApp(appId: string): Promise<void>;
}

export interface DeviceMessageRepo {
  insert(doc: DeviceMessageDoc): Promise<void>;
  /** The user's payloads not expired at `now`, oldest first (date, then id). */
  waiting(appId: string, userId: string, now: number): Promise<DeviceMessageDoc[]>;
  /** Payloads of any of `userIds` not expired at `now`, of any application, oldest first, at most `max`. */
  waitingOf(userIds: readonly string[], now: number, max: number): Promise<DeviceMessageDoc[]>;
  /** A stream took it: removed, so no other stream sends it. Whether it was still there. */
  take(appId: string, id: string): Promise<boolean>;
  /** Removes the user's payloads expired at `now`. */
  removeExpiredOf(appId: string, userId: string, now: number): Promise<void>;
  /** Removes up to `max` payloads expired at `now` (retention): how many went. */
  removeExpired(now: number, max: number): Promise<number>;
  removeForUser(appId: string, userId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
}

/** The engine's recent starts (engine/dwell-clock.ts), epoch ms, oldest first. */
export interface ServiceStartRepo {
  load(): Promise<number[]>;
  /** Replaces the stored starts. */
  save(starts: readonly number[]): Promise<void>;
}
