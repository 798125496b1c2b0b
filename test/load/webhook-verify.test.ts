// The harness's node:crypto verifier must judge signatures exactly as the standardwebhooks package
// does: what the package signs passes, and every kind of tampering the package rejects fails.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { WebhookVerifier } from '../../load-tests/webhook-verify.js';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const OTHER = `whsec_${randomBytes(24).toString('base64')}`;
const signer = new Webhook(SECRET);
const body = JSON.stringify({ event_id: 'evt_1', triggered_on: 'enter', place: { name: 'Café ☕' } });

function signed(at = new Date(), id = 'evt_1', payload = body) {
  return { id, ts: String(Math.floor(at.getTime() / 1000)), sig: signer.sign(id, at, payload) };
}

/** What the package says of the same delivery: undefined when it accepts it. */
function packageProblem(id: string, ts: string, sig: string, payload: string, secret = SECRET) {
  try {
    new Webhook(secret).verify(payload, { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': sig });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('webhook verifier', () => {
  const v = new WebhookVerifier(SECRET);

  it('accepts what the package signs, as the package does', () => {
    const s = signed();
    expect(packageProblem(s.id, s.ts, s.sig, body)).toBeUndefined();
    expect(v.problem(s.id, s.ts, s.sig, body)).toBeUndefined();
  });

  it('accepts a list of signatures when one of them is valid (a secret rotation)', () => {
    const s = signed();
    const other = new Webhook(OTHER).sign(s.id, new Date(Number(s.ts) * 1000), body);
    const list = `${other} v2,abc ${s.sig}`;
    expect(packageProblem(s.id, s.ts, list, body)).toBeUndefined();
    expect(v.problem(s.id, s.ts, list, body)).toBeUndefined();
  });

  it.each([
    ['a changed body', (s: ReturnType<typeof signed>) => [s.id, s.ts, s.sig, body.replace('enter', 'leave')]],
    ['a changed id', (s: ReturnType<typeof signed>) => ['evt_2', s.ts, s.sig, body]],
    ['a changed timestamp', (s: ReturnType<typeof signed>) => [s.id, String(Number(s.ts) + 1), s.sig, body]],
    ['another secret', (s: ReturnType<typeof signed>) => [s.id, s.ts, new Webhook(OTHER).sign(s.id, new Date(Number(s.ts) * 1000), body), body]],
    ['a signature of another version', (s: ReturnType<typeof signed>) => [s.id, s.ts, s.sig.replace('v1,', 'v2,'), body]],
    ['a truncated signature', (s: ReturnType<typeof signed>) => [s.id, s.ts, s.sig.slice(0, -4), body]],
    ['no signature header', (s: ReturnType<typeof signed>) => [s.id, s.ts, '', body]],
  ])('rejects %s, as the package does', (_name, make) => {
    const [id, ts, sig, payload] = make(signed()) as [string, string, string, string];
    expect(packageProblem(id, ts, sig, payload)).toBeDefined();
    expect(v.problem(id, ts, sig, payload)).toBeDefined();
  });

  it('rejects timestamps more than five minutes away, as the package does', () => {
    for (const offsetS of [-301, 301]) {
      const s = signed(new Date(Date.now() + offsetS * 1000));
      expect(packageProblem(s.id, s.ts, s.sig, body)).toMatch(/too (old|new)/);
      expect(v.problem(s.id, s.ts, s.sig, body)).toMatch(/too (old|new)/);
    }
    const recent = signed(new Date(Date.now() - 290_000));
    expect(v.problem(recent.id, recent.ts, recent.sig, body)).toBeUndefined();
  });
});
