// Message-trigger firings: read from message/list for every user at the end of the run (enough for
// the oracle), and for a sample of users also live from the /1/stream WebSocket, which gives the
// arrival time and hence the latency of message delivery.
import { WebSocket } from 'undici';
import { mapLimit } from './http-client.js';
import type { ServiceApi } from './api.js';
import { parseMessage, type ReceivedEvent } from './received.js';

export async function collectMessages(api: ServiceApi, appToken: string, users: Array<{ id: string }>, concurrency: number, deadline = Infinity): Promise<ReceivedEvent[]> {
  const lists = await mapLimit(users, concurrency, async (u) => {
    if (Date.now() > deadline) throw new Error('--max-runtime reached while reading message lists');
    const items = await api.listMessages(appToken, u.id);
    return items.map((item) => parseMessage(item, u.id)).filter((e): e is ReceivedEvent => e !== undefined);
  });
  return lists.flat();
}

/** Live message frames of a few users; arrival times by message id. */
export class StreamSampler {
  readonly arrivals = new Map<string, number>();
  readonly errors: string[] = [];
  frames = 0;
  private readonly sockets: WebSocket[] = [];

  constructor(private readonly baseUrl: string) {}

  open(users: Array<{ id: string; token: string }>, timeoutMs = 5000): Promise<void> {
    const wsBase = this.baseUrl.replace(/^http/, 'ws');
    const opened = users.map(
      (u) =>
        new Promise<void>((resolve) => {
          const ws = new WebSocket(`${wsBase}/1/stream`, { headers: { authorization: `OAuth ${u.token}` } });
          this.sockets.push(ws);
          const timer = setTimeout(() => {
            this.errors.push(`stream of user ${u.id}: not open after ${timeoutMs} ms`);
            resolve();
          }, timeoutMs);
          ws.addEventListener('open', () => {
            clearTimeout(timer);
            resolve();
          });
          ws.addEventListener('error', () => {
            clearTimeout(timer);
            if (this.errors.length < 10) this.errors.push(`stream of user ${u.id}: connection error`);
            resolve();
          });
          ws.addEventListener('message', (ev) => {
            const at = Date.now();
            this.frames++;
            try {
              const frame = JSON.parse(String(ev.data)) as { type?: string; message?: Record<string, unknown> };
              const id = frame.message?.message_id;
              if (frame.type === 'message' && typeof id === 'string' && !this.arrivals.has(id)) this.arrivals.set(id, at);
            } catch {
              /* not a JSON frame: ignored */
            }
          });
        }),
    );
    return Promise.all(opened).then(() => undefined);
  }

  close(): void {
    for (const ws of this.sockets) {
      try {
        ws.close();
      } catch {
        /* already closed */
      }
    }
  }
}
