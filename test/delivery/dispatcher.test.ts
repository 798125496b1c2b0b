// The outbox end to end against a real receiver on 127.0.0.1 (callbackAllowPrivate): recordFirings
// stores the firing, the dispatcher sends, retries through failures and logs every attempt;
// restarts, expired leases and replays deliver without losing or doubling anything.
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CallbackSender } from '../../src/delivery/callback-sender.js';
import type { DeliveryOptions, DeliveryRuntime } from '../../src/delivery/runtime.js';
import { recordFirings } from '../../src/delivery/firings.js';
import type { ServiceContext } from '../../src/services/context.js';
import { callbackFiring, countStatus, getFiring } from './firing-rows.js';
import { firingOf, openCtx, removeDir, seed, startDelivery, tempDataDir, until, type Fixture } from './helpers.js';
import { Receiver } from './receiver.js';

const FAST: DeliveryOptions = { pollMs: 25, round: { retries: 2, minDelayMs: 10 }, backoff: { baseMs: 60, capMs: 500 }, timeoutMs: 1_000 };

let dir: string;
let ctx: ServiceContext;
let receiver: Receiver;
let dispatcher: DeliveryRuntime | undefined;

beforeEach(async () => {
  dir = await tempDataDir();
  ctx = await openCtx(dir);
  receiver = await new Receiver().start();
});

afterEach(async () => {
  await dispatcher?.close();
  dispatcher = undefined;
  await receiver.stop();
  await ctx.store.close();
  await removeDir(dir);
});

const status = (ctx: ServiceContext, id: string) => getFiring(ctx, id).then((r) => r?.status);
const listAttempts = (ctx: ServiceContext, id: string) => ctx.store.attempts.list(id);
const fields = (f: Fixture, id: string, payload = '{}') => ({
  event_id: id, app_id: f.app._id, trigger_id: f.trigger._id, user_id: f.user._id, place_id: f.place._id, layer_id: f.layer._id, url: receiver.url, payload,
});

async function callbackFixture(ctx: ServiceContext): Promise<Fixture> {
  return seed(ctx, { type: 'callback', url: receiver.url, text: 'never sent to the phone' });
}

describe('dispatcher', () => {
  it('delivers once through 503, 500 and a reset, same webhook-id on every attempt, every attempt recorded', async () => {
    const f = await callbackFixture(ctx);
    receiver.plan([503, 500, 'reset'], 200);
    const firing = firingOf(f);
    expect(await recordFirings(ctx.delivery, [firing])).toEqual([{ event_id: firing.event_id, action: 'callback', duplicate: false }]);
    dispatcher = startDelivery(ctx, FAST);
    await until(async () => (await status(ctx, firing.event_id)) === 'delivered');

    expect(receiver.received.map((r) => r.status)).toEqual([503, 500, 'reset', 200]);
    expect(receiver.delivered()).toHaveLength(1);
    const wh = new Webhook(f.app.webhook_secret);
    for (const r of receiver.received) {
      expect(r.headers['webhook-id']).toBe(firing.event_id);
      // Each attempt is signed afresh and verifies on its own.
      expect(wh.verify(r.body, r.headers)).toMatchObject({ event_id: firing.event_id, triggered_on: 'enter' });
    }
    const attempts = await listAttempts(ctx, firing.event_id);
    expect(attempts.map((a) => [a.attempt, a.status_code ?? null, a.outcome])).toEqual([
      [1, 503, 'retry'], [2, 500, 'retry'], [3, null, 'retry'], [4, 200, 'delivered'],
    ]);
    expect(attempts[2]).toMatchObject({ error_class: 'reset', error: expect.stringMatching(/UND_ERR_SOCKET|ECONNRESET|other side closed/) });
    expect(attempts[3]).toMatchObject({ body: 'thanks' });
    const row = (await getFiring(ctx, firing.event_id))!;
    expect(attempts[3]).toMatchObject({ at: row.delivered_at, duration_ms: row.last_duration_ms });
    expect(attempts[3].at).toBeGreaterThanOrEqual(attempts[2].at);
    expect(row.last_duration_ms).toBeGreaterThanOrEqual(0);
    expect(row).toMatchObject({ status: 'delivered', attempts: 4, rounds: 2, last_status: 200 });
    expect(row.last_error).toBeUndefined();
    expect(row).not.toHaveProperty('lease_owner');
    expect(row).not.toHaveProperty('next_attempt_at');
    // Sent for good: the payload leaves the firing.
    expect(row).toHaveProperty('payload');
  });

  it('sends the reference payload with the trigger URL and never a message for a callback trigger', async () => {
    const f = await callbackFixture(ctx);
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    dispatcher = startDelivery(ctx, FAST);
    await until(() => receiver.delivered().length === 1);
    const payload = JSON.parse(receiver.received[0].body);
    expect(Object.keys(payload).sort()).toEqual(
      ['date', 'date_ts', 'event_id', 'layer', 'location', 'place', 'trigger', 'triggered_delay', 'triggered_on', 'user'],
    );
    expect(payload.trigger.callback_url).toBe(receiver.url);
    expect((await ctx.store.messages.page(f.app._id, f.user._id, { offset: 0, limit: 1 })).total).toBe(0);
  });

  it('a replayed batch writes nothing twice and delivers once', async () => {
    const f = await callbackFixture(ctx);
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    expect(await recordFirings(ctx.delivery, [firing])).toEqual([{ event_id: firing.event_id, action: 'callback', duplicate: true }]);
    expect(await ctx.store.firings.count({ app_id: f.app._id })).toBe(1);
    dispatcher = startDelivery(ctx, FAST);
    await until(async () => (await status(ctx, firing.event_id)) === 'delivered');
    expect(await recordFirings(ctx.delivery, [firing])).toEqual([{ event_id: firing.event_id, action: 'callback', duplicate: true }]);
    // Once the dispatcher has stopped, every send it started has ended: nothing more can come.
    await dispatcher.close();
    expect(receiver.received).toHaveLength(1);
  });

  it('410 makes the callback dead at once', async () => {
    const f = await callbackFixture(ctx);
    receiver.plan([], 410);
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    dispatcher = startDelivery(ctx, FAST);
    await until(async () => (await status(ctx, firing.event_id)) === 'dead');
    expect(receiver.received).toHaveLength(1);
    expect(await getFiring(ctx, firing.event_id)).toMatchObject({ status: 'dead', last_error: expect.stringMatching(/410/) });
    // A dead callback keeps what it would have sent, and its last attempt is stored.
    expect(JSON.parse((await getFiring(ctx, firing.event_id))!.payload!)).toMatchObject({ event_id: firing.event_id });
    expect((await listAttempts(ctx, firing.event_id)).map((a) => [a.attempt, a.status_code, a.outcome])).toEqual([[1, 410, 'dead']]);
  });

  it('gives up after the last round of the schedule and keeps every attempt', async () => {
    const f = await callbackFixture(ctx);
    receiver.plan([], 500);
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    dispatcher = startDelivery(ctx, { ...FAST, round: { retries: 1, minDelayMs: 5 }, backoff: { baseMs: 20, capMs: 40, maxRounds: 3 } });
    await until(async () => (await status(ctx, firing.event_id)) === 'dead');
    expect(receiver.received).toHaveLength(6);
    const row = (await getFiring(ctx, firing.event_id))!;
    expect(row).toMatchObject({ rounds: 3, attempts: 6, last_error: expect.stringMatching(/gave up after 3 rounds; last: HTTP 500/) });
    expect(await listAttempts(ctx, firing.event_id)).toHaveLength(6);
  });

  it('schedules the next round in the store (persisted next_attempt_at), honouring Retry-After', async () => {
    const f = await callbackFixture(ctx);
    receiver.plan([], 503);
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    dispatcher = startDelivery(ctx, { ...FAST, round: { retries: 0 }, backoff: { baseMs: 60_000, capMs: 3_600_000 } });
    await until(async () => (await getFiring(ctx, firing.event_id))?.rounds === 1 && (await status(ctx, firing.event_id)) === 'pending');
    const row = (await getFiring(ctx, firing.event_id))!;
    // Round 1 failed: the wait is 30-60 s (equal jitter on 60 s), stored in the row.
    expect(row.next_attempt_at! - Date.now()).toBeGreaterThan(25_000);
    expect(row.next_attempt_at! - Date.now()).toBeLessThanOrEqual(60_000);
    expect(receiver.received).toHaveLength(1);
  });

  it('does not follow a redirect from the receiver', async () => {
    const f = await callbackFixture(ctx);
    receiver.plan([302], 200);
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    dispatcher = startDelivery(ctx, FAST);
    await until(async () => (await status(ctx, firing.event_id)) === 'delivered');
    const attempts = await listAttempts(ctx, firing.event_id);
    expect(attempts[0]).toMatchObject({ status_code: 302, outcome: 'retry', error: expect.stringMatching(/not followed/) });
  });

  it('refuses loopback receivers when private targets are not allowed (dead, nothing sent)', async () => {
    const strict = { ...ctx, config: { ...ctx.config, callbackAllowPrivate: false } };
    const f = await callbackFixture(strict);
    const firing = firingOf(f);
    await recordFirings(strict.delivery, [firing]);
    dispatcher = startDelivery(strict, FAST);
    await until(async () => (await status(ctx, firing.event_id)) === 'dead');
    expect(receiver.received).toHaveLength(0);
    expect((await getFiring(ctx, firing.event_id))!.last_error).toMatch(/blocked: .*loopback/);
  });
});

describe('durability', () => {
  it('pending rows written before a restart are delivered after it (same DATA_DIR)', async () => {
    const f = await callbackFixture(ctx);
    const firings = [firingOf(f), firingOf(f), firingOf(f)];
    await recordFirings(ctx.delivery, firings);
    await ctx.store.close();

    ctx = await openCtx(dir);
    dispatcher = startDelivery(ctx, FAST);
    await until(async () => (await countStatus(ctx, f.app._id, 'delivered')) === 3);
    expect(receiver.received.map((r) => r.headers['webhook-id']).sort()).toEqual(firings.map((x) => x.event_id).sort());
    // Reopened from the file, the delivered firings are there with the payloads sent, for a redelivery.
    await dispatcher.close();
    dispatcher = undefined;
    await ctx.store.close();
    ctx = await openCtx(dir);
    const rows = await Promise.all(firings.map((x) => getFiring(ctx, x.event_id)));
    const sent = new Map(receiver.received.map((r) => [r.headers['webhook-id'], r.body]));
    expect(rows.map((r) => [r?.status, r?.payload === sent.get(r!.event_id)])).toEqual([['delivered', true], ['delivered', true], ['delivered', true]]);
  });

  it('a backlog of one receiver, several times its queue, drains without waiting for the next poll', async () => {
    const f = await callbackFixture(ctx);
    // Written before the loop starts, so only polls find them; the queue of one origin is 4 × 2 rows.
    const firings = Array.from({ length: 40 }, () => firingOf(f));
    await recordFirings(ctx.delivery, firings);
    // A poll interval far beyond the test's timeout: the backlog must not wait for it.
    dispatcher = startDelivery(ctx, { ...FAST, pollMs: 3_600_000, concurrency: 4, endpointConcurrency: 2 });
    await until(async () => (await countStatus(ctx, f.app._id, 'delivered')) === 40);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(40);
  });

  it('a row whose lease holder died while this dispatcher runs is re-sent once the lease runs out, with the same webhook-id', async () => {
    // (A row a dead process left before this one started is due at once on the embedded store:
    // dispatcher-handoff.test.ts. Here the lease is taken after the start, as another node on a
    // shared MongoDB would; it must be waited out.)
    const f = await callbackFixture(ctx);
    dispatcher = startDelivery(ctx, FAST);
    // A first callback delivered: the dispatcher is past its start (which sends at once what a
    // process that died left leased) and polling.
    const first = firingOf(f);
    await recordFirings(ctx.delivery, [first]);
    await until(async () => (await status(ctx, first.event_id)) === 'delivered');
    receiver.received.length = 0;
    const firing = firingOf(f);
    const leaseEnd = Date.now() + 400;
    // Stored and leased at once (both in one turn, as another node would have it), one attempt made.
    void ctx.store.firings.insert([callbackFiring(fields(f, firing.event_id), Date.now())]);
    const [leased] = await ctx.store.firings.leaseDue([firing.event_id], 'dead-process', leaseEnd, Date.now());
    leased!.attempts = 1;
    await ctx.store.firings.attempted(leased!, { event_id: firing.event_id, attempt: 1, app_id: f.app._id, at: Date.now(), duration_ms: 1, error: 'timeout', error_class: 'timeout', outcome: 'retry' });
    await until(async () => (await status(ctx, firing.event_id)) === 'delivered');
    // Not sent again before the lease ran out.
    expect(receiver.received.map((r) => r.at >= leaseEnd)).toEqual([true]);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([firing.event_id]);
    expect((await getFiring(ctx, firing.event_id))!).toMatchObject({ attempts: 2, rounds: 2 });
  });

  it('stopping mid-send hands the row back at once, and the next dispatcher sends it', async () => {
    const f = await callbackFixture(ctx);
    receiver.plan(['hang'], 200);
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    const first = startDelivery(ctx, { ...FAST, timeoutMs: 30_000 });
    await until(() => receiver.received.length === 1);
    await first.close();
    expect(await getFiring(ctx, firing.event_id)).toMatchObject({ status: 'pending' });
    expect(await getFiring(ctx, firing.event_id)).not.toHaveProperty('lease_owner');
    dispatcher = startDelivery(ctx, FAST);
    await until(async () => (await status(ctx, firing.event_id)) === 'delivered');
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([firing.event_id, firing.event_id]);
  });

  it('sends the stored payload string byte for byte', async () => {
    const f = await callbackFixture(ctx);
    const firing = firingOf(f);
    await recordFirings(ctx.delivery, [firing]);
    const stored = (await getFiring(ctx, firing.event_id))!.payload;
    expect(typeof stored).toBe('string');
    dispatcher = startDelivery(ctx, FAST);
    await until(async () => (await status(ctx, firing.event_id)) === 'delivered');
    expect(receiver.received.map((r) => r.body)).toEqual([stored]);
  });

  it('a due row without a payload is marked dead, nothing sent', async () => {
    const f = await callbackFixture(ctx);
    const { payload: _dropped, ...row } = callbackFiring(fields(f, 'evt_no_payload'), Date.now());
    await ctx.store.firings.insert([row]);
    dispatcher = startDelivery(ctx, FAST);
    await until(async () => (await status(ctx, 'evt_no_payload')) === 'dead');
    expect(receiver.received).toHaveLength(0);
    expect(await getFiring(ctx, 'evt_no_payload')).toMatchObject({ last_error: 'the row holds no payload' });
  });

  it('two dispatchers on one outbox send each row once', async () => {
    const f = await callbackFixture(ctx);
    const firings = Array.from({ length: 12 }, () => firingOf(f));
    await recordFirings(ctx.delivery, firings);
    dispatcher = startDelivery(ctx, FAST);
    const second = startDelivery(ctx, FAST);
    try {
      await until(async () => (await countStatus(ctx, f.app._id, 'delivered')) === 12);
    } finally {
      await second.close();
    }
    expect(receiver.received).toHaveLength(12);
  });
});

describe('sender limits against a real socket', () => {
  it('reads an endless response body only up to the cap, and a silent receiver times out', async () => {
    const sender = new CallbackSender({ allowPrivate: true, timeoutMs: 500, maxResponseBytes: 4096 });
    receiver.plan(['endless', 'hang']);
    const req = { eventId: 'evt_x', url: receiver.url, body: '{}', secret: 'whsec_' + Buffer.from('k'.repeat(24)).toString('base64') };
    expect(await sender.attempt(req)).toMatchObject({ kind: 'delivered', status: 200 });
    // The receiver never answers: only the attempt's deadline can end it.
    expect(await sender.attempt(req)).toMatchObject({ kind: 'retry', error: expect.stringMatching(/timeout|UND_ERR_HEADERS_TIMEOUT/) });
    await sender.close();
  });
});
