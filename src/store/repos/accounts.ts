// The repositories of applications and of who acts for them: applications, access tokens,
// authorization codes, API hit counters and users. Both engines implement them (sqlite/accounts.ts,
// sqlite/users.ts; mongodb/accounts.ts, mongodb/users.ts). Objects of an application are read and
// written with its id, so another application's object is exactly a missing one.
import type { Changes } from '../changes.js';
import type { ApiHitsDoc, ApplicationDoc, AuthCodeDoc, TokenDoc, UserDoc } from '../documents.js';
import type { Page, PageRequest } from '../paging.js';

export interface ApplicationRepo {
  get(id: string): Promise<ApplicationDoc | null>;
  byClientId(clientId: string): Promise<ApplicationDoc | null>;
  /** Oldest first. */
  all(): Promise<ApplicationDoc[]>;
  /** A taken client_id is a DuplicateKeyError. */
  insert(doc: ApplicationDoc): Promise<void>;
  /** The application as changed, or null when there is none. */
  update(id: string, changes: Changes<ApplicationDoc>): Promise<ApplicationDoc | null>;
  remove(id: string): Promise<boolean>;
}

export interface TokenRepo {
  /** By the SHA-256 hex of the token. */
  get(hash: string): Promise<TokenDoc | null>;
  insert(doc: TokenDoc): Promise<void>;
  /** Whether it was there to remove (a refresh token is spent once). */
  remove(hash: string): Promise<boolean>;
  removeMany(hashes: readonly string[]): Promise<void>;
  /** The application's own tokens and its own refresh tokens (not its users'). */
  removeAppTokens(appId: string): Promise<void>;
  removeForUser(userId: string): Promise<void>;
  removeForApp(appId: string): Promise<void>;
}

export interface AuthCodeRepo {
  /** By the SHA-256 hex of the code. */
  get(hash: string): Promise<AuthCodeDoc | null>;
  insert(doc: AuthCodeDoc): Promise<void>;
  /** Marks an unused code used, with the tokens it was exchanged for: false when it was used already. */
  claim(hash: string, tokenIds: readonly string[]): Promise<boolean>;
  /** Removes up to `max` codes that expired before `cutoff`: how many went. */
  removeExpiredBefore(cutoff: number, max: number): Promise<number>;
  removeForApp(appId: string): Promise<void>;
}

export interface ApiHitRepo {
  /** Stores each process's running totals whole (`_id` names the process's document). */
  save(docs: readonly ApiHitsDoc[]): Promise<void>;
  forApp(appId: string): Promise<Array<Pick<ApiHitsDoc, 'day' | 'hits'>>>;
  removeForApp(appId: string): Promise<void>;
}

export type DeviceKind = keyof UserDoc['devices'];

export interface UserRepo {
  get(appId: string, id: string): Promise<UserDoc | null>;
  /** Usernames, emails and keys are unique per application; usernames and emails in any case. */
  byUsername(appId: string, username: string): Promise<UserDoc | null>;
  byEmail(appId: string, email: string): Promise<UserDoc | null>;
  byKey(appId: string, key: string): Promise<UserDoc | null>;
  /** Oldest first. */
  page(appId: string, page: PageRequest): Promise<Page<UserDoc>>;
  /** Those of `ids` that exist, by id. */
  many(appId: string, ids: readonly string[]): Promise<UserDoc[]>;
  ids(appId: string): Promise<string[]>;
  forApp(appId: string): Promise<UserDoc[]>;
  /** Every user of every application (the engine's seeding). */
  all(): Promise<UserDoc[]>;
  /** A taken username, email or key is a DuplicateKeyError. */
  insert(doc: UserDoc): Promise<void>;
  /** The user as changed, or null when there is none; a taken username or email is a DuplicateKeyError. */
  update(appId: string, id: string, changes: Changes<UserDoc>): Promise<UserDoc | null>;
  /** Adds a push token to `kind`'s list, taking it out of the others (a token is in one list at a time). */
  addDevice(appId: string, id: string, kind: DeviceKind, token: string): Promise<void>;
  /** Takes a push token out of `kind`'s list (a provider said it is dead). */
  removeDevice(appId: string, id: string, kind: DeviceKind, token: string): Promise<void>;
  remove(appId: string, id: string): Promise<boolean>;
  removeForApp(appId: string): Promise<void>;
}
