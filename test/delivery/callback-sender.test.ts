// Outcome classification of one callback attempt, and the quick retries of a round, against a real
// HTTP server on 127.0.0.1 (the sender uses undici's request(), which msw does not intercept):
// timeouts, resets and redirects included.
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../src/auth/secrets.js';
import { CallbackSender, sendWithRetries, USER_AGENT, type AttemptOutcome } from '../../src/delivery/callback-sender.js';

interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
  text: string;
}
type Handler = (seen: Seen, res: http.ServerResponse, req: http.IncomingMessage) => void;

/** Every request that reached the server, and how the next ones are answered. */
const seenAll: Seen[] = [];
let handle: Handler = () => {
  throw new Error('no handler');
};
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const seen = { path: req.url ?? '', headers: req.headers, text: Buffer.concat(chunks).toString('utf8') };
    seenAll.push(seen);
    handle(seen, res, req);
  });
});
let base = '';
let URL_ = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  URL_ = `${base}/geo`;
  req.url = URL_;
});
afterEach(() => {
  seenAll.length = 0;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const secret = newWebhookSecret();
const body = JSON.stringify({ triggered_on: 'enter', event_id: 'evt_1' });
const req = { eventId: 'evt_1', url: '', body, secret };
// Loopback is the test server: private targets allowed here, refused by `strict` below.
const sender = new CallbackSender({ allowPrivate: true, timeoutMs: 300 });
afterAll(() => sender.close());

function reply(status: number, headers: Record<string, string> = {}) {
  handle = (_seen, res) => {
    res.writeHead(status, headers);
    res.end();
  };
}
/** Never answers (the connection stays open until the client gives up). */
const hang: Handler = () => undefined;

describe('CallbackSender.attempt', () => {
  it('POSTs the signed JSON body with our user agent; 2xx is delivered', async () => {
    handle = (_seen, res) => {
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    };
    const out = await sender.attempt(req);
    expect(out).toMatchObject({ kind: 'delivered', status: 202 });
    expect(seenAll).toHaveLength(1);
    const seen = seenAll[0]!;
    expect(seen.path).toBe('/geo');
    expect(seen.text).toBe(body);
    expect(seen.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['user-agent']).toBe(USER_AGENT);
    expect(seen.headers['webhook-id']).toBe('evt_1');
    // The headers global fetch used to add are still sent: receivers see the same request.
    expect(seen.headers).toMatchObject({ accept: '*/*' });
    expect(seen.headers['sec-fetch-mode']).toBeUndefined();
    expect(new Webhook(secret).verify(seen.text, seen.headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it.each([
    [200, 'delivered'], [204, 'delivered'],
    [410, 'dead'], [400, 'dead'], [401, 'dead'], [403, 'dead'], [404, 'dead'], [422, 'dead'],
    [408, 'retry'], [409, 'retry'], [425, 'retry'], [429, 'retry'],
    [500, 'retry'], [501, 'retry'], [502, 'retry'], [503, 'retry'], [504, 'retry'],
  ] as const)('HTTP %i is %s', async (status, kind) => {
    reply(status);
    const out = await sender.attempt(req);
    expect(out.kind).toBe(kind);
    expect((out as { status?: number }).status).toBe(status);
  });

  it('410 says the endpoint is gone', async () => {
    reply(410);
    expect(await sender.attempt(req)).toMatchObject({ kind: 'dead', error: expect.stringMatching(/gone/) });
  });

  it('honours Retry-After in seconds and as an HTTP date', async () => {
    reply(429, { 'retry-after': '120' });
    expect(await sender.attempt(req)).toMatchObject({ kind: 'retry', retryAfterMs: 120_000 });
    reply(503, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() });
    const out = (await sender.attempt(req)) as { retryAfterMs: number };
    expect(out.retryAfterMs).toBeGreaterThan(55_000);
    expect(out.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('does not follow redirects: a 3xx is a failure to retry, and the target is never called', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      seenAll.length = 0;
      handle = (seen, res) => {
        res.writeHead(seen.path === '/geo' ? status : 200, seen.path === '/geo' ? { location: `${base}/elsewhere` } : {});
        res.end();
      };
      const out = await sender.attempt(req);
      expect(out).toMatchObject({ kind: 'retry', status, error: `HTTP ${status}: redirect to ${base}/elsewhere not followed` });
      expect(seenAll.map((s) => s.path)).toEqual(['/geo']);
    }
  });

  it('a receiver that never answers is a timeout to retry', async () => {
    handle = hang;
    // The receiver never answers: only the attempt's deadline can end it.
    const out = await sender.attempt(req);
    expect(out).toMatchObject({ kind: 'retry', error: expect.stringMatching(/^timeout/) });
  });

  it('a stop mid-attempt throws; finished attempts leave no listener on the stop signal', async () => {
    const stop = new AbortController();
    reply(200);
    expect(await sender.attempt(req, stop.signal)).toMatchObject({ kind: 'delivered' });
    reply(503);
    expect(await sender.attempt(req, stop.signal)).toMatchObject({ kind: 'retry' });
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    // Stopped once the request has reached the receiver, which never answers.
    handle = () => stop.abort(new Error('stopping'));
    await expect(sender.attempt(req, stop.signal)).rejects.toThrow('stopping');
  });

  it('the status decides: a body that breaks off after it, or outlives the deadline, does not change the outcome', async () => {
    handle = (_seen, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      // Broken off once the status and the start of the body are on their way.
      res.write('partial', () => res.socket?.destroy());
    };
    expect(await sender.attempt(req)).toMatchObject({ kind: 'delivered', status: 200 });
    handle = (_seen, res) => {
      res.writeHead(503, { 'content-length': '1000', 'retry-after': '7' });
      res.write('slow'); // the rest never comes: the 300 ms deadline ends the attempt
    };
    expect(await sender.attempt(req)).toMatchObject({ kind: 'retry', status: 503, retryAfterMs: 7_000 });
  });

  it('an attempt whose stop signal has already fired sends nothing and throws its reason', async () => {
    reply(200);
    const stop = new AbortController();
    stop.abort(new Error('stopped before'));
    await expect(sender.attempt(req, stop.signal)).rejects.toThrow('stopped before');
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    // The next attempt is the first request the receiver sees.
    expect(await sender.attempt(req)).toMatchObject({ kind: 'delivered' });
    expect(seenAll).toHaveLength(1);
  });

  it('a reset connection is a failure to retry', async () => {
    handle = (_seen, _res, request) => request.socket.destroy();
    expect(await sender.attempt(req)).toMatchObject({ kind: 'retry' });
  });

  it('refuses a non-public target without sending anything (dead, not retried)', async () => {
    handle = (_seen, res) => res.end();
    const strict = new CallbackSender({ allowPrivate: false, timeoutMs: 300, resolve: (_h, _o, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]) });
    const port = new URL(base).port;
    for (const url of [`http://127.0.0.1:${port}/hook`, 'http://169.254.169.254/latest', `http://localhost:${port}/hook`, 'http://[::1]/x']) {
      expect(await strict.attempt({ ...req, url })).toMatchObject({ kind: 'dead', error: expect.stringMatching(/^blocked/) });
    }
    // A name that resolves to loopback is refused at connect time (DNS rebinding).
    expect(await strict.attempt({ ...req, url: `http://rebind.example.test:${port}/hook` })).toMatchObject({
      kind: 'dead', error: expect.stringMatching(/^blocked: rebind\.example\.test resolves to a refused address: 127\.0\.0\.1 is in the loopback range/),
    });
    expect(seenAll).toHaveLength(0);
    await strict.close();
  });
});

describe('sendWithRetries (one dispatch round)', () => {
  it('retries blips quickly with the same webhook-id and a fresh signature each time', async () => {
    const statuses = [503, 502, 200];
    handle = (_seen, res) => {
      res.writeHead(statuses[seenAll.length - 1]!);
      res.end();
    };
    const outcomes: AttemptOutcome[] = [];
    const numbers: number[] = [];
    const last = await sendWithRetries(sender, req, { retries: 2, minDelayMs: 5, onAttempt: (o, n) => void (outcomes.push(o), numbers.push(n)) });
    expect(last.kind).toBe('delivered');
    expect(outcomes.map((o) => o.kind)).toEqual(['retry', 'retry', 'delivered']);
    expect(numbers).toEqual([1, 2, 3]);
    expect(seenAll).toHaveLength(3);
    expect(new Set(seenAll.map((s) => s.headers['webhook-id']))).toEqual(new Set(['evt_1']));
    for (const s of seenAll) {
      expect(s.text).toBe(body);
      expect(() => new Webhook(secret).verify(body, s.headers as Record<string, string>)).not.toThrow();
    }
  });

  it('stops at once on a permanent failure', async () => {
    reply(410);
    expect((await sendWithRetries(sender, req, { retries: 3, minDelayMs: 5 })).kind).toBe('dead');
    expect(seenAll).toHaveLength(1);
  });

  it('gives up after its retries and returns the last failure', async () => {
    reply(500);
    expect(await sendWithRetries(sender, req, { retries: 2, minDelayMs: 5 })).toMatchObject({ kind: 'retry', status: 500 });
    expect(seenAll).toHaveLength(3);
  });

  it('waits out a short Retry-After inside the round; a long one ends the round', async () => {
    const arrivals: number[] = [];
    handle = (_seen, res) => {
      arrivals.push(Date.now());
      res.writeHead(seenAll.length === 1 ? 429 : 200, seenAll.length === 1 ? { 'retry-after': '1' } : {});
      res.end();
    };
    expect((await sendWithRetries(sender, req, { retries: 2, minDelayMs: 5 })).kind).toBe('delivered');
    // The receiver asked for a second: the retry did not come sooner (a floor, whatever the load).
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(1_000);

    seenAll.length = 0;
    reply(503, { 'retry-after': '3600' });
    expect(await sendWithRetries(sender, req, { retries: 2, minDelayMs: 5 })).toMatchObject({ kind: 'retry', retryAfterMs: 3_600_000 });
    expect(seenAll).toHaveLength(1);
  });
});
