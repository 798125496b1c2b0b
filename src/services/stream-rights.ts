// The streaming API's subscriptions over time (plugins/streaming.ts). A subscription is checked
// when the socket asks for it (services/streaming.ts), and again before each event it would get:
// the right may have been withdrawn since (the watched user set `public_location` to 0, the group
// became invite-only, the watcher left it, the socket's token was revoked or expired, the share
// link closed). What a check found is kept until a write to a collection a right is read from
// (store.writes: a local change is never missed) or AUTH_CACHE_TTL_MS, whichever comes first (a
// change made by another process, a token expiring); a share link is read at every event, as its
// dates and hours close it without any write. A subscription that no longer holds is handed back
// as a refusal, for the socket to be told and to leave the room.
import { ApiError } from '../errors.js';
import type { ServiceContext } from './context.js';
import { checkRoom, streamScope, subscriptionRoom, TRIP_ROOM_PREFIX, tripRoomOpen, type StreamScope } from './streaming.js';

/** The collections the rights of a subscription are read from (a trip's share link is read every time). */
const SOURCES = ['applications', 'users', 'tokens', 'groups', 'group_members'] as const;

/** A socket's handshake credentials, as sent. */
export interface WatcherCredentials {
  access_token?: unknown;
  client_id?: unknown;
}

/**
 * A subscription that no longer holds. `credential`: the socket's own credential is refused (its
 * token was revoked or expired, its application deleted), so every subscription of it has ended.
 */
export interface Refusal {
  watcher: string;
  error: ApiError;
  credential: boolean;
}

/** When a check was made: its result stands while no write came and the time is not up. */
interface Stamp {
  generation: number;
  until: number;
}

interface Watcher {
  creds: WatcherCredentials;
  address?: string;
  scope?: { stamp: Stamp; value: Promise<StreamScope> };
  /** Room → the `token` value that asked for it and when it last held. */
  subscriptions: Map<string, { value: string; stamp: Stamp }>;
}

export class StreamRights {
  private readonly watchers = new Map<string, Watcher>();
  /** Bumped by every settled write to a source collection: what was found before it is checked again. */
  private generation = 0;

  constructor(private readonly ctx: ServiceContext) {
    ctx.store.writes.on(SOURCES, () => {
      this.generation++;
    });
  }

  /** A socket connected, with these credentials, from `address` (share-token guesses count against it). */
  add(id: string, creds: WatcherCredentials, address?: string): void {
    this.watchers.set(id, { creds, address, subscriptions: new Map() });
  }

  remove(id: string): void {
    this.watchers.delete(id);
  }

  /** How many subscriptions the socket holds. */
  subscriptions(id: string): number {
    return this.watchers.get(id)?.subscriptions.size ?? 0;
  }

  /** The room `value` (a `token` event's) subscribes the socket to; an ApiError when it may not. */
  async subscribe(id: string, value: string): Promise<string> {
    const w = this.watcher(id);
    const stamp = this.stamp();
    const scope = await this.scopeOf(w);
    expiring(stamp, scope);
    const room = await subscriptionRoom(this.ctx, scope, value);
    w.subscriptions.set(room, { value, stamp });
    return room;
  }

  /**
   * Of the sockets in `room`, those whose subscription to it no longer holds, each forgotten here.
   * A failure that is not a refusal (the store unavailable) is thrown: the event is not sent.
   */
  async refusals(room: string, ids: Iterable<string>): Promise<Refusal[]> {
    const watching = [...ids].flatMap((id) => {
      const w = this.watchers.get(id);
      const sub = w?.subscriptions.get(room);
      return w && sub ? [{ id, w, sub }] : [];
    });
    if (room.startsWith(TRIP_ROOM_PREFIX)) {
      if (watching.length === 0 || (await tripRoomOpen(this.ctx, room))) return [];
      return watching.map(({ id, w, sub }) => {
        w.subscriptions.delete(room);
        return { watcher: id, error: ended(sub.value, 'the share link does not show the location now'), credential: false };
      });
    }
    const out: Refusal[] = [];
    await Promise.all(watching.map(async ({ id, w, sub }) => {
      if (this.fresh(sub.stamp)) return;
      const stamp = this.stamp();
      let scope: StreamScope;
      try {
        scope = await this.scopeOf(w);
        expiring(stamp, scope);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        w.subscriptions.clear();
        out.push({ watcher: id, error: err, credential: true });
        return;
      }
      try {
        await checkRoom(this.ctx, scope, room);
        sub.stamp = stamp;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        w.subscriptions.delete(room);
        out.push({ watcher: id, error: ended(sub.value, err.description), credential: false });
      }
    }));
    return out;
  }

  private watcher(id: string): Watcher {
    const w = this.watchers.get(id);
    if (!w) throw new Error(`stream watcher ${id} is not registered`);
    return w;
  }

  /** The socket's scope (services/streaming.ts), read again once stale: the token may be gone. */
  private scopeOf(w: Watcher): Promise<StreamScope> {
    if (!w.scope || !this.fresh(w.scope.stamp)) {
      const stamp = this.stamp();
      const value = streamScope(this.ctx, w.creds, w.address);
      // Awaited by each caller; a refused credential must not also be an unhandled rejection.
      value.then((scope) => expiring(stamp, scope), () => {});
      w.scope = { stamp, value };
    }
    return w.scope.value;
  }

  /** Taken before the reads a check makes, so a write during them makes the check stale. */
  private stamp(): Stamp {
    return { generation: this.generation, until: this.ctx.now() + this.ctx.config.authCacheTtlMs };
  }

  private fresh(stamp: Stamp): boolean {
    return stamp.generation === this.generation && stamp.until > this.ctx.now();
  }
}

/** A check made with a token stands no longer than the token. */
function expiring(stamp: Stamp, scope: StreamScope): void {
  const expiresAt = scope.auth?.expiresAt;
  if (expiresAt !== undefined && expiresAt !== null) stamp.until = Math.min(stamp.until, expiresAt);
}

/** Why a subscription ended, in the error the refusal of a new one would carry. */
function ended(value: string, why: string): ApiError {
  return new ApiError('not_found', `The subscription ${value} has ended: ${why}`);
}
