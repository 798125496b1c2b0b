// Outcome classification of one callback attempt, and the quick retries of a round, against msw:
// the cases a local receiver cannot produce cleanly (timeouts, resets, redirects) included.
import { getEventListeners } from 'node:events';
import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../src/auth/secrets.js';
import { CallbackSender, sendWithRetries, USER_AGENT, type AttemptOutcome } from '../../src/delivery/callback-sender.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const secret = newWebhookSecret();
const URL_ = 'https://hooks.example.com/geo';
const body = JSON.stringify({ triggered_on: 'enter', event_id: 'evt_1' });
const req = { eventId: 'evt_1', url: URL_, body, secret };
const sender = new CallbackSender({ allowPrivate: false, timeoutMs: 300 });
afterAll(() => sender.close());

function reply(status: number, headers: Record<string, string> = {}) {
  server.use(http.post(URL_, () => new HttpResponse(null, { status, headers })));
}

describe('CallbackSender.attempt', () => {
  it('POSTs the signed JSON body with our user agent; 2xx is delivered', async () => {
    let seen: { headers: Headers; text: string } | undefined;
    server.use(http.post(URL_, async ({ request }) => {
      seen = { headers: request.headers, text: await request.text() };
      return HttpResponse.json({ ok: true }, { status: 202 });
    }));
    const out = await sender.attempt(req);
    expect(out).toMatchObject({ kind: 'delivered', status: 202 });
    expect(seen!.text).toBe(body);
    expect(seen!.headers.get('content-type')).toBe('application/json');
    expect(seen!.headers.get('user-agent')).toBe(USER_AGENT);
    expect(seen!.headers.get('webhook-id')).toBe('evt_1');
    const headers = Object.fromEntries(seen!.headers.entries());
    expect(new Webhook(secret).verify(seen!.text, headers)).toEqual(JSON.parse(body));
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
    let followed = false;
    server.use(
      http.post(URL_, () => new HttpResponse(null, { status: 307, headers: { location: 'https://hooks.example.com/elsewhere' } })),
      http.post('https://hooks.example.com/elsewhere', () => {
        followed = true;
        return new HttpResponse(null, { status: 200 });
      }),
    );
    const out = await sender.attempt(req);
    expect(out).toMatchObject({ kind: 'retry', status: 307, error: expect.stringMatching(/redirect to https:\/\/hooks\.example\.com\/elsewhere not followed/) });
    expect(followed).toBe(false);
  });

  it('a receiver that never answers is a timeout to retry', async () => {
    server.use(http.post(URL_, async () => {
      await delay('infinite');
      return new HttpResponse(null, { status: 200 });
    }));
    const started = Date.now();
    const out = await sender.attempt(req);
    expect(out).toMatchObject({ kind: 'retry', error: expect.stringMatching(/^timeout/) });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a stop mid-attempt throws; finished attempts leave no listener on the stop signal', async () => {
    const stop = new AbortController();
    reply(200);
    expect(await sender.attempt(req, stop.signal)).toMatchObject({ kind: 'delivered' });
    reply(503);
    expect(await sender.attempt(req, stop.signal)).toMatchObject({ kind: 'retry' });
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    server.use(http.post(URL_, async () => {
      await delay('infinite');
      return new HttpResponse(null, { status: 200 });
    }));
    const pending = sender.attempt(req, stop.signal);
    setTimeout(() => stop.abort(new Error('stopping')), 50);
    await expect(pending).rejects.toThrow('stopping');
  });

  it('a reset connection is a failure to retry', async () => {
    server.use(http.post(URL_, () => HttpResponse.error()));
    expect(await sender.attempt(req)).toMatchObject({ kind: 'retry' });
  });

  it('refuses a non-public target without sending anything (dead, not retried)', async () => {
    // onUnhandledRequest: 'error' would fail the test if a request left.
    for (const url of ['http://127.0.0.1:8080/hook', 'http://169.254.169.254/latest', 'http://localhost/hook', 'http://[::1]/x']) {
      expect(await sender.attempt({ ...req, url })).toMatchObject({ kind: 'dead', error: expect.stringMatching(/^blocked/) });
    }
  });
});

describe('sendWithRetries (one dispatch round)', () => {
  it('retries blips quickly with the same webhook-id and a fresh signature each time', async () => {
    const statuses = [503, 502, 200];
    const seen: Array<Record<string, string>> = [];
    server.use(http.post(URL_, async ({ request }) => {
      seen.push(Object.fromEntries(request.headers.entries()));
      return new HttpResponse(null, { status: statuses[seen.length - 1] });
    }));
    const outcomes: AttemptOutcome[] = [];
    const last = await sendWithRetries(sender, req, { retries: 2, minDelayMs: 5, onAttempt: (o) => void outcomes.push(o) });
    expect(last.kind).toBe('delivered');
    expect(outcomes.map((o) => o.kind)).toEqual(['retry', 'retry', 'delivered']);
    expect(new Set(seen.map((h) => h['webhook-id']))).toEqual(new Set(['evt_1']));
    for (const h of seen) expect(() => new Webhook(secret).verify(body, h)).not.toThrow();
  });

  it('stops at once on a permanent failure', async () => {
    let calls = 0;
    server.use(http.post(URL_, () => {
      calls++;
      return new HttpResponse(null, { status: 410 });
    }));
    expect((await sendWithRetries(sender, req, { retries: 3, minDelayMs: 5 })).kind).toBe('dead');
    expect(calls).toBe(1);
  });

  it('gives up after its retries and returns the last failure', async () => {
    let calls = 0;
    server.use(http.post(URL_, () => {
      calls++;
      return new HttpResponse(null, { status: 500 });
    }));
    expect(await sendWithRetries(sender, req, { retries: 2, minDelayMs: 5 })).toMatchObject({ kind: 'retry', status: 500 });
    expect(calls).toBe(3);
  });

  it('waits out a short Retry-After inside the round; a long one ends the round', async () => {
    let calls = 0;
    server.use(http.post(URL_, () => (++calls === 1 ? new HttpResponse(null, { status: 429, headers: { 'retry-after': '1' } }) : new HttpResponse(null, { status: 200 }))));
    const started = Date.now();
    expect((await sendWithRetries(sender, req, { retries: 2, minDelayMs: 5 })).kind).toBe('delivered');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);

    calls = 0;
    server.use(http.post(URL_, () => {
      calls++;
      return new HttpResponse(null, { status: 503, headers: { 'retry-after': '3600' } });
    }));
    expect(await sendWithRetries(sender, req, { retries: 2, minDelayMs: 5 })).toMatchObject({ kind: 'retry', retryAfterMs: 3_600_000 });
    expect(calls).toBe(1);
  });
});
