// The live message stream a phone keeps open with its user token (GET /1/stream, routes/stream.ts).
// On connect it gets the messages queued for it at that moment (all of them, a page at a time),
// oldest first, then new ones as they are stored; each socket gets a message at most once. A
// message counts as delivered once it is written to an open socket; another socket of the user
// that connected while it was still queued gets it too. Sockets are per process; so
// that a message stored by another node (or by a crashed-and-restarted one) still arrives, the hub
// also polls the store for undelivered messages of the users it has sockets for (on MongoDB only:
// the embedded store has no other writer, and the poll reads every message of every connected user). Deleting a user
// closes their sockets here (USER_DELETED); on MongoDB with several nodes, only this node's.
// message/device payloads travel the same way as {"type":"device"} frames, after the queued
// messages, each to whichever streams are open when it comes (delivery/device-messages.ts).
import type { StoreAccess } from './types.js';
import type { DeviceMessageDoc, MessageDoc } from '../store/documents.js';
import { deviceItem, payloadTaken, waitingPayloads, waitingPayloadsOf } from './device-messages.js';
import { markDelivered, messageItem, QUEUE_PAGE, queuePage } from './messages.js';

/** One open socket, reduced to what the hub needs (the route adapts a `ws` WebSocket). */
export interface LiveSocket {
  send(text: string): Promise<void>;
  isOpen(): boolean;
  close(code: number, reason: string): void;
}

/**
 * How a deleted user's streams are closed: in the application range (4000-4999), 4401 mirrors the
 * 401 a reconnect with the same token now gets, so a client knows not to retry.
 */
export const USER_DELETED = { code: 4401, reason: 'user deleted' } as const;

interface Connection {
  appId: string;
  userId: string;
  timeZone: string;
  socket: LiveSocket;
  /** Message ids already written here: the queue flush, a live push and a poll may overlap. */
  sent: Set<string>;
  /** False while the queued messages are being sent; live ones wait so order is kept. */
  ready: boolean;
  waiting: MessageDoc[];
  /** message/device payloads that came while not ready (delivery/device-messages.ts). */
  waitingPayloads: DeviceMessageDoc[];
}

const key = (appId: string, userId: string) => `${appId}\u0000${userId}`;

export class LiveHub {
  private readonly byUser = new Map<string, Set<Connection>>();
  private poller?: NodeJS.Timeout;
  private ctx?: StoreAccess;
  private polling = false;

  constructor(private pollMs = 2_000) {}

  /** How often the store is polled for messages stored elsewhere (0: never). */
  setPollInterval(ms: number) {
    this.pollMs = ms;
    if (this.poller) {
      this.stopPolling();
      this.startPolling();
    }
  }

  connections(appId: string, userId: string): number {
    return this.byUser.get(key(appId, userId))?.size ?? 0;
  }

  /** Registers a socket and sends the user's queued messages. Returns the function that detaches it. */
  async attach(ctx: StoreAccess, appId: string, userId: string, timeZone: string, socket: LiveSocket): Promise<() => void> {
    this.ctx = ctx;
    const conn: Connection = { appId, userId, timeZone, socket, sent: new Set(), ready: false, waiting: [], waitingPayloads: [] };
    const k = key(appId, userId);
    // The replay sends what was queued at this moment; later messages reach the socket as pushes.
    const since = ctx.now();
    // Registered before the queue is read, so a message stored meanwhile is not missed.
    let set = this.byUser.get(k);
    if (!set) this.byUser.set(k, (set = new Set()));
    set.add(conn);
    this.startPolling();
    const detach = () => {
      const s = this.byUser.get(k);
      s?.delete(conn);
      if (s && s.size === 0) this.byUser.delete(k);
      if (this.byUser.size === 0) this.stopPolling();
    };
    try {
      // The user may have been deleted since the token was checked. The connection is registered
      // already, so a delete after this read closes it through userRemoved().
      if (!(await ctx.store.users.get(appId, userId))) {
        socket.close(USER_DELETED.code, USER_DELETED.reason);
        detach();
        return detach;
      }
      // Read before the replay: once its last frame is out, the socket is ready with no read between.
      const payloads = await waitingPayloads(ctx, appId, userId, ctx.now());
      await this.replay(ctx, conn, since);
      for (const d of payloads) await this.writePayload(ctx, conn, d);
      // Then the live ones that came meanwhile, in arrival order. Ready only once none is left:
      // a push while they are written must queue behind them, not overtake them.
      while (conn.waiting.length > 0 || conn.waitingPayloads.length > 0) {
        for (const m of conn.waiting.splice(0)) await this.write(ctx, conn, m);
        for (const d of conn.waitingPayloads.splice(0)) await this.writePayload(ctx, conn, d);
      }
      conn.ready = true;
    } catch (err) {
      detach();
      throw err;
    }
    return detach;
  }

  /**
   * Sends the queue as it stood at `since`, a page at a time, until it is all sent or the socket
   * closes (what is left stays queued). Every page, not just the first: the rest was left to the
   * poll, and another socket's replay could mark it delivered before then, so it never came here.
   */
  private async replay(ctx: StoreAccess, conn: Connection, since: number): Promise<void> {
    let after: MessageDoc | undefined;
    for (;;) {
      const page = await queuePage(ctx, conn.appId, conn.userId, since, after);
      for (const m of page) {
        if (!conn.socket.isOpen()) return;
        await this.write(ctx, conn, m);
      }
      if (page.length < QUEUE_PAGE) return;
      after = page[page.length - 1];
    }
  }

  /** Writes a stored message to every open socket of its user. True when at least one took it. */
  async push(ctx: StoreAccess, m: MessageDoc): Promise<boolean> {
    const set = this.byUser.get(key(m.app_id, m.user_id));
    if (!set) return false;
    let any = false;
    for (const conn of [...set]) {
      if (!conn.ready) {
        conn.waiting.push(m);
        continue;
      }
      if (await this.write(ctx, conn, m)) any = true;
    }
    return any;
  }

  /** Writes a message/device payload to every open socket of its user. True when at least one took it. */
  async pushPayload(ctx: StoreAccess, d: DeviceMessageDoc): Promise<boolean> {
    const set = this.byUser.get(key(d.app_id, d.user_id));
    if (!set) return false;
    let any = false;
    for (const conn of [...set]) {
      if (!conn.ready) {
        conn.waitingPayloads.push(d);
        continue;
      }
      if (await this.writePayload(ctx, conn, d)) any = true;
    }
    return any;
  }

  /** The user was deleted: their open sockets are closed and forgotten. */
  userRemoved(appId: string, userId: string): void {
    const k = key(appId, userId);
    const set = this.byUser.get(k);
    if (!set) return;
    this.byUser.delete(k);
    if (this.byUser.size === 0) this.stopPolling();
    for (const conn of set) conn.socket.close(USER_DELETED.code, USER_DELETED.reason);
  }

  private async write(ctx: StoreAccess, conn: Connection, m: MessageDoc): Promise<boolean> {
    if (conn.sent.has(m._id) || !conn.socket.isOpen()) return false;
    conn.sent.add(m._id);
    try {
      await conn.socket.send(JSON.stringify({ type: 'message', message: messageItem(m, conn.timeZone) }));
    } catch {
      conn.sent.delete(m._id);
      return false;
    }
    await markDelivered(ctx, m, ctx.now());
    return true;
  }

  private async writePayload(ctx: StoreAccess, conn: Connection, d: DeviceMessageDoc): Promise<boolean> {
    if (conn.sent.has(d._id) || !conn.socket.isOpen() || d.expires_at <= ctx.now()) return false;
    conn.sent.add(d._id);
    try {
      await conn.socket.send(JSON.stringify({ type: 'device', device: deviceItem(d, conn.timeZone) }));
    } catch {
      conn.sent.delete(d._id);
      return false;
    }
    await payloadTaken(ctx, d);
    return true;
  }

  private startPolling() {
    if (this.poller || this.pollMs <= 0) return;
    this.poller = setInterval(() => void this.poll(), this.pollMs);
    this.poller.unref();
  }

  private stopPolling() {
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
  }

  /** Picks up messages stored by other processes for the users connected here. */
  async poll(): Promise<void> {
    const ctx = this.ctx;
    if (!ctx || this.polling) return;
    this.polling = true;
    try {
      // One query for every connected user, not one per user: this runs every pollMs.
      const userIds = [...new Set([...this.byUser.values()].flatMap((set) => [...set].map((c) => c.userId)))];
      for (let i = 0; i < userIds.length; i += 500) {
        const due = await ctx.store.messages.undelivered(userIds.slice(i, i + 500), 1000);
        // push() matches on (app, user), so a foreign app's user with the same id gets nothing.
        for (const m of due) await this.push(ctx, m);
        for (const d of await waitingPayloadsOf(ctx, userIds.slice(i, i + 500), ctx.now())) await this.pushPayload(ctx, d);
      }
    } catch {
      // The store being briefly unavailable only delays delivery to the next poll.
    } finally {
      this.polling = false;
    }
  }

  stop() {
    this.stopPolling();
    this.byUser.clear();
  }
}
