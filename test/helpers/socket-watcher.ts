// A Socket.IO client of the streaming API (reference §4.8) for tests: the real `socket.io-client`
// over a real socket, connected once the server asked for authentication. It collects the
// `location` events and `token error` events (each a JSON string, parsed), and gives a barrier:
// a `token` the server refuses, whose answer comes back after every event the server emitted to
// this socket before it, so "nothing more arrived" is asserted without waiting for time to pass.
import { io, type Socket, type SocketOptions, type ManagerOptions } from 'socket.io-client';

/** A subscription no server accepts, and the description of its refusal. */
const BARRIER = 'barrier-none';
const BARRIER_REFUSAL = 'Subscription not found';

export interface Watcher {
  socket: Socket;
  locations: any[];
  tokenErrors: any[];
  /** Resolves with the acknowledgement of a `token` event. */
  subscribe(value: string): Promise<Record<string, unknown>>;
  /** Resolves once `n` items are in `list` (a watcher's own list), with the n-th. */
  nth(list: any[], n: number): Promise<any>;
  /** Resolves after every event the server sent this socket before now has arrived. */
  barrier(): Promise<void>;
  /** Resolves with the reason once the socket is disconnected. */
  disconnected: Promise<string>;
}

export async function connectWatcher(url: string, auth: Record<string, string> = {}, options: Partial<ManagerOptions & SocketOptions> = {}): Promise<Watcher> {
  const socket = io(url, { auth, reconnection: false, forceNew: true, ...options });
  const locations: any[] = [];
  const tokenErrors: any[] = [];
  const waiters: Array<() => void> = [];
  /** The barriers waiting for their own `token error`, which the server sends last. */
  const barriers: Array<() => void> = [];
  const collect = (list: any[]) => (data: unknown) => {
    const body = JSON.parse(String(data));
    if (list === tokenErrors && body.error_description === BARRIER_REFUSAL && barriers.length > 0) return barriers.shift()!();
    list.push(body);
    for (const w of waiters.splice(0)) w();
  };
  socket.on('location', collect(locations));
  socket.on('token error', collect(tokenErrors));
  const disconnected = new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));
  await new Promise<void>((resolve, reject) => {
    socket.once('enter authentication', () => resolve());
    socket.once('connect_error', reject);
  });
  const nth = (list: any[], n: number) => new Promise<any>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`expected ${n} events, got ${JSON.stringify(list)}`)), 10_000);
    const check = () => {
      if (list.length >= n) {
        clearTimeout(timer);
        resolve(list[n - 1]);
      } else waiters.push(check);
    };
    check();
  });
  const subscribe = (value: string) => socket.timeout(10_000).emitWithAck('token', value) as Promise<Record<string, unknown>>;
  // A `token` the server refuses at once, without touching what the socket watches.
  const barrier = async () => {
    const refused = new Promise<void>((resolve) => barriers.push(resolve));
    await socket.timeout(10_000).emitWithAck('token', BARRIER);
    await refused;
  };
  return { socket, locations, tokenErrors, subscribe, nth, barrier, disconnected };
}
