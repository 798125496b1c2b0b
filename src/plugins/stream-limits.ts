// The streaming plugin's limits on sockets (plugins/streaming.ts), so that connections nobody uses
// cannot pile up: a socket that holds no subscription is closed after STREAM_AUTH_TIMEOUT_MS (from
// connecting, and again once its last subscription ended), and one remote address (the peer; no
// proxy header is read) holds at most STREAM_CONNECTIONS_PER_ADDRESS connections, past which the
// engine.io handshake is refused. Helpers of that plugin, made once per app; not a plugin.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'socket.io';
import { ApiError } from '../errors.js';

/**
 * Closes the sockets that hold no subscription after `ms`: they are told why (a `token error`
 * with a 408) and disconnected.
 */
export class IdleTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly ms: number) {}

  arm(socket: Socket): void {
    this.clear(socket);
    const timer = setTimeout(() => {
      this.timers.delete(socket.id);
      const error = new ApiError('request_timeout', `No subscription within ${this.ms} ms: a socket must send a valid token event`);
      socket.emit('token error', JSON.stringify(error.body()));
      socket.disconnect(true);
    }, this.ms);
    timer.unref();
    this.timers.set(socket.id, timer);
  }

  clear(socket: Socket): void {
    clearTimeout(this.timers.get(socket.id));
    this.timers.delete(socket.id);
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

/** What the connection cap needs of engine.io's server. */
interface EngineEvents {
  on(event: 'connection', listener: (socket: { request: IncomingMessage; once(event: 'close', listener: () => void): unknown }) => void): unknown;
  on(event: 'connection_error', listener: (err: { req: IncomingMessage }) => void): unknown;
}

/**
 * Streaming connections per remote address, counted from the handshake's admission (so handshakes
 * in flight count too) to the connection's close; a handshake that never became a connection
 * gives its place back.
 */
export class AddressCap {
  private readonly open = new Map<string, number>();
  /** Admitted handshakes not yet connected, with the release of their place should they fail. */
  private readonly admitted = new Map<IncomingMessage, { address: string; abandon: () => void }>();

  /** 0: no cap. */
  constructor(private readonly cap: number) {}

  /** Undefined when the handshake may go on; else why it is refused. */
  admit(req: IncomingMessage): string | undefined {
    if (this.cap === 0) return undefined;
    const address = req.socket.remoteAddress ?? '';
    const n = this.open.get(address) ?? 0;
    if (n >= this.cap) return `Too many streaming connections from this address (at most ${this.cap})`;
    this.open.set(address, n + 1);
    // A handshake can fail where engine.io tells no one (a bad WebSocket upgrade): its socket closes.
    const abandon = () => this.settle(req, false);
    this.admitted.set(req, { address, abandon });
    req.socket.once('close', abandon);
    return undefined;
  }

  /** Follows the engine's connections: a place is held until its connection closes. */
  follow(engine: EngineEvents): void {
    engine.on('connection', (socket) => {
      const address = this.settle(socket.request, true);
      if (address !== undefined) socket.once('close', () => this.release(address));
    });
    engine.on('connection_error', ({ req }) => this.settle(req, false));
  }

  /** The address of an admitted handshake, now resolved; its place is released unless it connected. */
  private settle(req: IncomingMessage, connected: boolean): string | undefined {
    const a = this.admitted.get(req);
    if (!a) return undefined;
    this.admitted.delete(req);
    req.socket.off('close', a.abandon);
    if (!connected) this.release(a.address);
    return a.address;
  }

  private release(address: string): void {
    const n = (this.open.get(address) ?? 1) - 1;
    if (n > 0) this.open.set(address, n);
    else this.open.delete(address);
  }
}
