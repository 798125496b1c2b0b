// The callback sender in its worker thread (src/delivery/sender-thread.ts), against a real HTTP
// receiver on 127.0.0.1: the receiver gets the same signed request as from the in-process sender,
// signed with the dispatcher's clock; a thread that dies mid-request is a retry and is replaced;
// a stop does not wait for the receiver.
import { getEventListeners } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../src/auth/secrets.js';
import { USER_AGENT } from '../../src/delivery/callback-sender.js';
import { ThreadedSender } from '../../src/delivery/sender-thread.js';

const seen: Array<{ headers: http.IncomingHttpHeaders; text: string }> = [];
/** Requests held unanswered until released (to catch the thread mid-request). */
const held: http.ServerResponse[] = [];
let hold = false;
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    seen.push({ headers: req.headers, text: Buffer.concat(chunks).toString('utf8') });
    if (hold) held.push(res);
    else res.writeHead(204).end();
  });
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const secret = newWebhookSecret();
const until = async (cond: () => boolean) => {
  // Bounded generously: a thread starts in seconds when the cores are busy.
  for (let i = 0; i < 3000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
};

/** Threads of this process named `gt-sender` (the operating system's view: top -H, ps -T). */
const senderThreads = () =>
  readdirSync('/proc/self/task').filter((tid) => {
    try {
      return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === 'gt-sender';
    } catch {
      return false;
    }
  }).length;

describe('ThreadedSender', () => {
  it('holds no thread at rest: it starts with the first attempt and ends once idle', async () => {
    const sender = new ThreadedSender({ allowPrivate: true, timeoutMs: 2_000 }, { idleMs: 100 });
    try {
      expect(senderThreads()).toBe(0);
      const first = await sender.attempt({ eventId: 'evt_i1', url, body: '{}', secret });
      expect(first.kind).toBe('delivered');
      expect(senderThreads()).toBe(1);
      await until(() => senderThreads() === 0);
      expect(senderThreads()).toBe(0);
      // The next attempt starts a thread again.
      const again = await sender.attempt({ eventId: 'evt_i2', url, body: '{}', secret });
      expect(again.kind).toBe('delivered');
    } finally {
      await sender.close();
    }
  });

  it('delivers many requests at once, each signed with the caller\'s clock', async () => {
    const clock = Date.UTC(2024, 0, 2, 3, 4, 5);
    const sender = new ThreadedSender({ allowPrivate: true, timeoutMs: 2_000, now: () => clock });
    try {
      seen.length = 0;
      const bodies = Array.from({ length: 40 }, (_, i) => JSON.stringify({ event_id: `evt_${i}`, n: i }));
      const outcomes = await Promise.all(bodies.map((body, i) => sender.attempt({ eventId: `evt_${i}`, url, body, secret })));
      expect(outcomes.every((o) => o.kind === 'delivered' && o.status === 204)).toBe(true);
      expect(seen).toHaveLength(40);
      // The thread carries its name where the operating system shows it (top -H, ps -T).
      const names = readdirSync('/proc/self/task').map((tid) => {
        try {
          return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
        } catch {
          return '';
        }
      });
      expect(names).toContain('gt-sender');
      const wh = new Webhook(secret);
      for (const s of seen) {
        expect(s.headers['webhook-timestamp']).toBe(String(clock / 1000));
        expect(s.headers['user-agent']).toBe(USER_AGENT);
        // Verifies against the receiver's idea of now: the timestamp is the caller's, years ago.
        expect(() => wh.verify(s.text, s.headers as Record<string, string>)).toThrow(/timestamp/i);
        const id = String(s.headers['webhook-id']);
        expect(JSON.parse(s.text)).toEqual({ event_id: id, n: Number(id.slice(4)) });
      }
    } finally {
      await sender.close();
    }
  });

  it('a refused connection is a retry outcome, as in process', async () => {
    const sender = new ThreadedSender({ allowPrivate: true, timeoutMs: 1_000 });
    try {
      const o = await sender.attempt({ eventId: 'evt_r', url: 'http://127.0.0.1:9/none', body: '{}', secret });
      expect(o.kind).toBe('retry');
      if (o.kind === 'retry') expect(o.error).toMatch(/ECONNREFUSED/);
    } finally {
      await sender.close();
    }
  });

  it('a thread that dies mid-request is a retry, and the next attempt runs in a new thread', async () => {
    const sender = new ThreadedSender({ allowPrivate: true, timeoutMs: 5_000 });
    try {
      seen.length = 0;
      hold = true;
      const pending = sender.attempt({ eventId: 'evt_d', url, body: '{}', secret });
      await until(() => held.length === 1);
      await (sender as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      const o = await pending;
      expect(o.kind).toBe('retry');
      if (o.kind === 'retry') expect(o.error).toMatch(/sender thread/);
      hold = false;
      const again = await sender.attempt({ eventId: 'evt_d', url, body: '{}', secret });
      expect(again.kind).toBe('delivered');
      expect(seen.map((s) => s.headers['webhook-id'])).toEqual(['evt_d', 'evt_d']);
    } finally {
      hold = false;
      for (const res of held.splice(0)) res.destroy();
      await sender.close();
    }
  });

  it('a stop rejects what is in flight at once, and a closed sender takes nothing', async () => {
    const sender = new ThreadedSender({ allowPrivate: true, timeoutMs: 5_000 });
    hold = true;
    try {
      const ac = new AbortController();
      const other = new AbortController();
      const pending = sender.attempt({ eventId: 'evt_s', url, body: '{}', secret }, ac.signal);
      const second = sender.attempt({ eventId: 'evt_s2', url, body: '{}', secret }, ac.signal);
      const unrelated = sender.attempt({ eventId: 'evt_u', url, body: '{}', secret }, other.signal);
      await until(() => held.length === 3);
      // One listener on the dispatcher's signal however many attempts are in flight.
      expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
      ac.abort(new Error('stopping'));
      await expect(pending).rejects.toThrow('stopping');
      await expect(second).rejects.toThrow('stopping');
      // An attempt under another signal is not stopped by this one: its receiver answers it.
      held.find((res) => res.req.headers['webhook-id'] === 'evt_u')!.writeHead(200).end();
      await expect(unrelated).resolves.toMatchObject({ kind: 'delivered', status: 200 });
      await sender.close();
      await expect(sender.attempt({ eventId: 'evt_t', url, body: '{}', secret })).rejects.toThrow(/closed/);
    } finally {
      hold = false;
      for (const res of held.splice(0)) res.destroy();
      await sender.close();
    }
  });
});
