// Our signatures must verify with the reference Standard Webhooks library, and fail when anything
// signed changes: that is the whole contract with receivers.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../src/auth/secrets.js';
import { signWebhook } from '../../src/delivery/signing.js';

const body = JSON.stringify({ triggered_on: 'enter', user: { user_id: 'Gf' }, text: 'héllo ✓' });

describe('signWebhook', () => {
  it('verifies with the standardwebhooks package', () => {
    const secret = newWebhookSecret();
    const ts = Math.floor(Date.now() / 1000);
    const headers = signWebhook('evt_123', ts, body, secret);
    expect(headers['webhook-id']).toBe('evt_123');
    expect(headers['webhook-timestamp']).toBe(String(ts));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('is rejected for a changed body, id, timestamp or secret', () => {
    const secret = newWebhookSecret();
    const ts = Math.floor(Date.now() / 1000);
    const headers = { ...signWebhook('evt_1', ts, body, secret) };
    const wh = new Webhook(secret);
    expect(() => wh.verify(body.replace('enter', 'leave'), headers)).toThrow();
    expect(() => wh.verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow();
    expect(() => wh.verify(body, { ...headers, 'webhook-timestamp': String(ts + 1) })).toThrow();
    expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(body, headers)).toThrow();
  });

  it('is rejected by receivers when the timestamp is stale (so retries must re-sign)', () => {
    const secret = newWebhookSecret();
    const stale = Math.floor(Date.now() / 1000) - 600;
    expect(() => new Webhook(secret).verify(body, { ...signWebhook('evt_1', stale, body, secret) })).toThrow(/too old/i);
  });

  it('signs with every secret during a rotation; either one verifies', () => {
    const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
    const headers = { ...signWebhook('evt_9', Math.floor(Date.now() / 1000), body, [oldSecret, newSecret]) };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow();
  });

  it('refuses ids the scheme cannot carry', () => {
    expect(() => signWebhook('a.b', 1, body, newWebhookSecret())).toThrow();
    expect(() => signWebhook('', 1, body, newWebhookSecret())).toThrow();
  });
});
