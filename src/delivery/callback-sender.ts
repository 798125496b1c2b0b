// One callback POST and what its outcome means. This is where the service talks to application
// servers, so everything a hostile or broken receiver could do is bounded here: the SSRF guard on
// every attempt, a hard deadline over connect + headers + body, a cap on how much of the response
// is read, and no redirects. Outcomes follow Standard Webhooks (docs/api.md, "Callbacks"):
//   2xx                          delivered
//   410                          dead: the receiver says the endpoint is gone
//   408, 409, 425, 429, 5xx      retry, honouring Retry-After
//   3xx                          retry (the redirect is not followed; the log says where it pointed)
//   other 4xx                    dead: the receiver rejects this request and will keep doing so
//   timeout, reset, DNS, refused retry
//   refused by the SSRF guard    dead
// sendWithRetries() adds the short in-process retries of one dispatch round (p-retry); the long
// schedule is the delivery loop's (retry-schedule.ts).
import pRetry, { AbortError } from 'p-retry';
import type { Dispatcher } from 'undici';
import { ApiError } from '../errors.js';
import { ATTEMPT_BODY_MAX, type AttemptErrorClass } from '../store/firings.js';
import { parseRetryAfter } from './retry-schedule.js';
import { postOnce, type PostTarget, type ResponseHeaders } from './post-once.js';
import { signWebhook } from './signing.js';
import { assertCallbackUrl, createGuardedAgent, type Resolver } from './ssrf-guard.js';

export const USER_AGENT = 'geotrigger-webhooks/1 (+https://www.standardwebhooks.com/)';

export interface CallbackRequest {
  eventId: string;
  /** Read at each attempt: the dispatcher points a round's later attempts at the trigger's current URL. */
  url: string;
  /** The serialised payload; the same bytes on every attempt. */
  body: string;
  /** The application's `whsec_` secret(s): several while a secret is rotated. */
  secret: string | string[];
  /** The caller's clock when the attempt starts (epoch ms), when the sender runs in another thread. */
  now?: number;
}

/**
 * How an attempt went. `body`: the start of the receiver's answer (ATTEMPT_BODY_MAX bytes at most);
 * `errorClass`: what failed when no status came back.
 */
export type AttemptOutcome =
  | { kind: 'delivered'; status: number; durationMs: number; body?: string }
  | { kind: 'retry'; status?: number; error: string; errorClass?: AttemptErrorClass; retryAfterMs?: number; durationMs: number; body?: string }
  | { kind: 'dead'; status?: number; error: string; errorClass?: AttemptErrorClass; durationMs: number; body?: string };

/** What the dispatcher needs of a sender, in this thread or in the sender thread (sender-thread.ts). */
export interface Sender {
  attempt(req: CallbackRequest, signal?: AbortSignal): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

export interface SenderOptions {
  allowPrivate: boolean;
  /** Deadline of one attempt: connect, headers and body together. */
  timeoutMs?: number;
  /** Bytes of response body read (and discarded) at most; the rest is cancelled. */
  maxResponseBytes?: number;
  /** Injectable resolver for the connect-time guard (tests). */
  resolve?: Resolver;
  now?: () => number;
}

const RETRYABLE_4XX = new Set([408, 409, 425, 429]);

export class CallbackSender implements Sender {
  readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly agent: Dispatcher;
  private readonly now: () => number;

  constructor(private readonly opts: SenderOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.maxResponseBytes = opts.maxResponseBytes ?? 64 * 1024;
    this.now = opts.now ?? Date.now;
    this.agent = createGuardedAgent({
      allowPrivate: opts.allowPrivate,
      connectTimeoutMs: Math.min(5_000, this.timeoutMs),
      headersTimeoutMs: this.timeoutMs,
      bodyTimeoutMs: this.timeoutMs,
      resolve: opts.resolve,
    });
  }

  /** One attempt. Never throws: every failure is an outcome. `signal` aborts it (shutdown). */
  async attempt(req: CallbackRequest, signal?: AbortSignal): Promise<AttemptOutcome> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    const at = req.now ?? this.now();
    // Checked for every attempt (the verdict is kept per URL), not only at registration: covers
    // IP-literal hosts, which the connect-time lookup never sees, and a policy that changed since
    // the trigger was created.
    const target = this.target(req.url);
    if (typeof target === 'string') return { kind: 'dead', error: `blocked: ${target}`, errorClass: 'ssrf', durationMs: took() };
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signWebhook(req.eventId, Math.floor(at / 1000), req.body, req.secret),
      // What global fetch added, kept so receivers see the same request as before.
      ...DEFAULT_HEADERS,
    };
    try {
      // No redirect handling: a 3xx is an outcome like any status. The response body is read up to
      // maxResponseBytes and ignored (reference §5); a body that breaks off after the status line
      // (or the deadline during the body) does not change the outcome.
      const res = await postOnce(this.agent, target, headers, req.body, { timeoutMs: this.timeoutMs, maxResponseBytes: this.maxResponseBytes, signal, keepBytes: ATTEMPT_BODY_MAX });
      const outcome = classify(res.status, res.headers, took(), at + took());
      if (res.body) outcome.body = res.body;
      return outcome;
    } catch (err) {
      if (signal?.aborted) throw err;
      return classifyError(err, took(), this.timeoutMs);
    }
  }

  // The URL check's verdict by URL: it depends only on the URL and this sender's fixed policy, and
  // parsing the URL and its address was ~4 µs of every attempt. Bounded: cleared when full.
  private readonly targets = new Map<string, PostTarget | string>();

  private target(url: string): PostTarget | string {
    let t = this.targets.get(url);
    if (t === undefined) {
      try {
        const parsed = assertCallbackUrl(url, this.opts.allowPrivate);
        t = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      } catch (err) {
        t = err instanceof ApiError ? err.description : String(err);
      }
      if (this.targets.size >= 1_000) this.targets.clear();
      this.targets.set(url, t);
    }
    return t;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

// A server-to-server POST: no browser fetch headers (sec-fetch-mode, accept-language), and no
// accept-encoding, since only the status and a capped body of the answer are ever read.
const DEFAULT_HEADERS = { accept: '*/*' };

function header(headers: ResponseHeaders, name: string): string | null {
  const v = headers[name];
  return v === undefined ? null : Array.isArray(v) ? (v[0] ?? null) : v;
}

function classify(status: number, headers: ResponseHeaders, durationMs: number, now: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered', status, durationMs };
  if (status === 410) return { kind: 'dead', status, error: 'HTTP 410: the receiver says this endpoint is gone', durationMs };
  const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'), now);
  if (status >= 300 && status < 400) {
    const location = header(headers, 'location');
    return { kind: 'retry', status, error: `HTTP ${status}: redirect${location ? ` to ${location.slice(0, 200)}` : ''} not followed`, durationMs };
  }
  if (status >= 400 && status < 500 && !RETRYABLE_4XX.has(status)) {
    return { kind: 'dead', status, error: `HTTP ${status}: rejected by the receiver`, durationMs };
  }
  return { kind: 'retry', status, error: `HTTP ${status}`, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), durationMs };
}

function classifyError(err: unknown, durationMs: number, timeoutMs: number): AttemptOutcome {
  const e = err as { name?: string };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') {
    return { kind: 'retry', error: `timeout: no complete response within ${timeoutMs} ms`, errorClass: 'timeout', durationMs };
  }
  // The reason may be wrapped in `cause` (fetch did so, sometimes two levels down).
  let cause: unknown = err;
  for (let i = 0; i < 3 && cause && typeof cause === 'object' && 'cause' in cause && (cause as { cause?: unknown }).cause; i++) {
    cause = (cause as { cause: unknown }).cause;
  }
  const c = cause as { code?: string; message?: string; name?: string };
  if (c?.code === 'ERR_SSRF_BLOCKED') return { kind: 'dead', error: `blocked: ${c.message}`, errorClass: 'ssrf', durationMs };
  // undici's own header and body deadlines equal ours: whichever timer fires first, the same outcome.
  if (c?.code === 'UND_ERR_HEADERS_TIMEOUT' || c?.code === 'UND_ERR_BODY_TIMEOUT') {
    return { kind: 'retry', error: `timeout: no complete response within ${timeoutMs} ms`, errorClass: 'timeout', durationMs };
  }
  const code = c?.code ?? c?.name ?? 'Error';
  return { kind: 'retry', error: `${code}: ${c?.message ?? String(err)}`.slice(0, 500), errorClass: errorClassOf(code), durationMs };
}

/** The class of a connection's failure, by its error code. */
export function errorClassOf(code: string): AttemptErrorClass {
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return 'timeout';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') return 'reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'ENODATA') return 'dns';
  if (/^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|HOSTNAME_MISMATCH)/.test(code)) return 'tls';
  return 'other';
}

export interface RoundOptions {
  /** Quick retries after the first attempt of a round (p-retry `retries`). */
  retries?: number;
  /** First quick-retry delay; doubles, randomised ×1..2 by p-retry. */
  minDelayMs?: number;
  /** A Retry-After longer than this ends the round and is left to the long schedule. */
  maxInlineRetryAfterMs?: number;
  signal?: AbortSignal;
  /** Called after every attempt, before the next one starts (the dispatcher records it here). */
  onAttempt?: (outcome: AttemptOutcome, attemptInRound: number) => Promise<void> | void;
  /** Asked before each quick retry: false ends the round with the last outcome (its app or user is gone). */
  proceed?: () => Promise<boolean> | boolean;
}

class RetryableOutcome extends Error {
  constructor(readonly outcome: AttemptOutcome & { kind: 'retry' }) {
    super(outcome.error);
  }
}

/**
 * One dispatch round: an attempt plus a few quick retries for blips (a restarting receiver, a
 * dropped connection). Returns the last outcome; only a stop signal makes it throw.
 *
 * The first attempt is made here, and p-retry takes over only when it asks for a retry: nearly
 * every round ends with its first attempt, and p-retry's setup per call (its options, a listener
 * on the stop signal, promise wrappers) was ~13 µs of the dispatching thread per callback.
 */
export async function sendWithRetries(sender: Sender, req: CallbackRequest, opts: RoundOptions = {}): Promise<AttemptOutcome> {
  const maxInline = opts.maxInlineRetryAfterMs ?? 5_000;
  const first = await sender.attempt(req, opts.signal);
  await opts.onAttempt?.(first, 1);
  const retries = opts.retries ?? 2;
  if (verdict(first, maxInline) !== 'retry' || retries <= 0) return first;
  let last = first;
  try {
    await pRetry(
      async (n) => {
        // p-retry's attempt 1 is the one made above: its outcome is replayed, not sent again, so
        // the quick retries keep p-retry's delays and Retry-After handling.
        if (n > 1 && opts.proceed && !(await opts.proceed())) throw new AbortError('the callback is no longer wanted');
        const outcome = n === 1 ? first : await sender.attempt(req, opts.signal);
        if (n > 1) {
          last = outcome;
          await opts.onAttempt?.(outcome, n);
        }
        const v = verdict(outcome, maxInline);
        if (v === 'done') return;
        if (v === 'stop') throw new AbortError('the round ends with this outcome'); // returned as `last`
        throw new RetryableOutcome(outcome as AttemptOutcome & { kind: 'retry' });
      },
      {
        retries,
        minTimeout: opts.minDelayMs ?? 1_000,
        factor: 2,
        randomize: true,
        signal: opts.signal,
        // A short Retry-After is honoured inside the round: wait for it before p-retry's own delay.
        onFailedAttempt: async ({ error }) => {
          const wait = error instanceof RetryableOutcome ? (error.outcome.retryAfterMs ?? 0) : 0;
          if (wait > 0) await sleep(wait, opts.signal);
        },
      },
    );
  } catch (err) {
    if (opts.signal?.aborted) throw err;
  }
  return last;
}

/** Whether a round ends with this outcome: delivered, given up on (dead, or a long Retry-After), or retried now. */
function verdict(o: AttemptOutcome, maxInlineRetryAfterMs: number): 'done' | 'stop' | 'retry' {
  if (o.kind === 'delivered') return 'done';
  if (o.kind === 'dead' || (o.retryAfterMs ?? 0) > maxInlineRetryAfterMs) return 'stop';
  return 'retry';
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
