// The callback receiver: real HTTP on loopback, Standard Webhooks signatures checked with the
// application's secret, arrival times kept, and first deliveries refused on request.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { CallbackReceiver } from '../../load-tests/receiver.js';
import { WebhookVerifier } from '../../load-tests/webhook-verify.js';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const signer = new Webhook(SECRET);
let receiver: CallbackReceiver | undefined;

afterEach(async () => {
  await receiver?.stop();
  receiver = undefined;
});

async function post(base: string, path: string, id: string, body: string, tamper = false) {
  const ts = new Date();
  const headers = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
    'webhook-signature': signer.sign(id, ts, body),
  };
  const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: tamper ? body.replace('enter', 'leave') : body });
  await res.arrayBuffer();
  return res.status;
}

const payload = (id: string) => JSON.stringify({ event_id: id, triggered_on: 'enter', date_ts: 1_700_000_000, user: { user_id: 'U' }, trigger: { trigger_id: 'T' }, place: { place_id: 'P' } });

describe('callback receiver', () => {
  it('accepts signed callbacks, records them with their path and arrival time', async () => {
    receiver = new CallbackReceiver({ webhookSecret: SECRET });
    const base = await receiver.start();
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const before = Date.now();
    expect(await post(base, '/cb/t1', 'evt_1', payload('evt_1'))).toBe(200);
    expect(receiver.deliveries).toHaveLength(1);
    const d = receiver.deliveries[0];
    expect(d).toMatchObject({ id: 'evt_1', path: '/cb/t1', userId: 'U', triggerId: 'T', placeId: 'P', triggeredOn: 'enter', t: 1_700_000_000_000, problems: [] });
    expect(d.arrivalAt).toBeGreaterThanOrEqual(before);
    expect(receiver.uniqueEvents).toBe(1);
  });

  it('reports a callback whose signature does not match its body', async () => {
    receiver = new CallbackReceiver({ webhookSecret: SECRET });
    const base = await receiver.start();
    await post(base, '/cb/t1', 'evt_2', payload('evt_2'), true);
    expect(receiver.deliveries[0].problems.join()).toMatch(/signature not valid/);
    expect(receiver.samples).toHaveLength(1);
  });

  it('refuses the first delivery of an event when asked to, and accepts the retry', async () => {
    receiver = new CallbackReceiver({ webhookSecret: SECRET, refuseFirstShare: 1 });
    const base = await receiver.start();
    expect(await post(base, '/cb/t1', 'evt_3', payload('evt_3'))).toBe(503);
    expect(receiver.awaitingRetry).toBe(1);
    expect(await post(base, '/cb/t1', 'evt_3', payload('evt_3'))).toBe(200);
    expect(receiver.awaitingRetry).toBe(0);
    expect(await post(base, '/cb/t1', 'evt_3', payload('evt_3'))).toBe(200);
    expect(receiver.refused).toBe(1);
    expect(receiver.deliveries).toHaveLength(2);
    expect(receiver.uniqueEvents).toBe(1);
  });

  it('judges a signature by the arrival time, however late the deliveries are read', () => {
    receiver = new CallbackReceiver({ webhookSecret: SECRET });
    // Arrived ten minutes ago, signed a second before: read now, past the 5-minute tolerance of now.
    const arrivalAt = Date.now() - 10 * 60_000;
    const ts = new Date(arrivalAt - 1000);
    const body = payload('evt_4');
    const headers = { 'webhook-id': 'evt_4', 'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)), 'webhook-signature': signer.sign('evt_4', ts, body) };
    expect(receiver.handle('/cb/t1', headers, Buffer.from(body), arrivalAt)).toBe(200);
    expect(receiver.accepted).toBe(1);
    expect(receiver.uniqueEvents).toBe(1);
    expect(receiver.deliveries[0]).toMatchObject({ id: 'evt_4', arrivalAt, problems: [] });
    // Checked against the time of reading instead, the same delivery would be refused as too old.
    expect(new WebhookVerifier(SECRET).problem('evt_4', headers['webhook-timestamp'], headers['webhook-signature'], body)).toMatch(/too old/);
  });

  it('reads deliveries as they come once too many are unread, keeping their order', () => {
    receiver = new CallbackReceiver({ webhookSecret: SECRET, maxUnread: 2 });
    const now = Date.now();
    for (let i = 0; i < 5; i++) {
      const id = `evt_m${i}`;
      const ts = new Date(now);
      const body = payload(id);
      const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now / 1000)), 'webhook-signature': signer.sign(id, ts, body) };
      expect(receiver.handle('/cb/t1', headers, Buffer.from(body), now + i)).toBe(200);
      expect(receiver.unread).toBeLessThan(2);
    }
    expect(receiver.accepted).toBe(5);
    expect(receiver.deliveries.map((d) => [d.id, d.arrivalAt, d.problems.length])).toEqual(
      [0, 1, 2, 3, 4].map((i) => [`evt_m${i}`, now + i, 0]),
    );
  });
});
