// The repositories of what users leave and share: geonotes, share links, history batches, groups
// with their members and messages.
import type { Changes } from '../changes.js';
import type {
  GeonoteDoc, GroupDoc, GroupMemberDoc, GroupMembership, GroupMessageDoc, LocationBatchDoc, ShareLinkDoc,
} from '../documents.js';
import type { Page, PageRequest } from '../paging.js';

export interface GeonoteRepo {
  insert(doc: GeonoteDoc): Promise<void>;
  /** The user's notes, newest first. */
  forUser(appId: string, userId: string): Promise<GeonoteDoc[]>;
  markTriggered(appId: string, id: string, at: number): Promise<void>;
  removeForUser(appId: string, userId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
}

export interface ShareLinkRepo {
  /** Tokens are global: a taken one is a DuplicateKeyError. */
  insert(doc: ShareLinkDoc): Promise<void>;
  get(appId: string, token: string): Promise<ShareLinkDoc | null>;
  /** The links of any application among `tokens` (share/* names no application). */
  byTokens(tokens: readonly string[]): Promise<ShareLinkDoc[]>;
  setStatus(appId: string, token: string, status: ShareLinkDoc['status']): Promise<void>;
  removeForUser(appId: string, userId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
}

export interface LocationBatchRepo {
  insert(doc: LocationBatchDoc): Promise<void>;
  get(appId: string, userId: string, id: string): Promise<LocationBatchDoc | null>;
  markDeleted(appId: string, id: string, at: number): Promise<void>;
  removeForUser(appId: string, userId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
}

export interface GroupRepo {
  get(appId: string, token: string): Promise<GroupDoc | null>;
  /** Whatever its application (the streaming API's sockets may name none). */
  byToken(token: string): Promise<GroupDoc | null>;
  /** Oldest first; `ownerId`: only the groups that user created. */
  page(appId: string, ownerId: string | undefined, page: PageRequest): Promise<Page<GroupDoc>>;
  many(appId: string, tokens: readonly string[]): Promise<GroupDoc[]>;
  insert(doc: GroupDoc): Promise<void>;
  update(appId: string, token: string, changes: Changes<GroupDoc>): Promise<GroupDoc | null>;
  remove(appId: string, token: string): Promise<boolean>;
  removeForApp(appId: string): Promise<void>;
}

export interface GroupMemberRepo {
  get(appId: string, groupToken: string, userId: string): Promise<GroupMemberDoc | null>;
  /** When the group's latest member joined (epoch ms), if it has any. */
  lastJoinedAt(appId: string, groupToken: string): Promise<number | undefined>;
  /** Oldest member first, at most `max`. */
  ofGroup(appId: string, groupToken: string, max: number): Promise<GroupMemberDoc[]>;
  /** A user's memberships, oldest first. */
  pageForUser(appId: string, userId: string, page: PageRequest): Promise<Page<GroupMemberDoc>>;
  /** The groups the user publishes to. */
  publishingGroups(appId: string, userId: string): Promise<string[]>;
  /** One membership per (group, user): a second is a DuplicateKeyError. */
  insert(doc: GroupMemberDoc): Promise<void>;
  setMembership(appId: string, groupToken: string, userId: string, membership: GroupMembership): Promise<void>;
  remove(appId: string, groupToken: string, userId: string): Promise<boolean>;
  removeForGroup(appId: string, groupToken: string): Promise<void>;
  removeForUser(appId: string, userId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
}

export interface GroupMessageRepo {
  insert(doc: GroupMessageDoc): Promise<void>;
  /** Newest first. */
  page(appId: string, groupToken: string, page: PageRequest): Promise<Page<GroupMessageDoc>>;
  removeForGroup(appId: string, groupToken: string): Promise<void>;
  removeForUser(appId: string, userId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
}

export const memberId = (groupToken: string, userId: string) => `${groupToken}:${userId}`;
