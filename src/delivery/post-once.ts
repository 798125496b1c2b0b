// One POST through undici's low-level dispatch(), for the callback sender. undici's request() wraps
// every answer in a Readable body stream and needs an AbortSignal per call for the deadline; the
// sender reads only the status and two headers and discards the body, so this handler keeps just
// those and counts the body's bytes. With the sender's cached URL check, the sending thread's CPU
// per callback fell from 67-71 to 37-41 µs (bench/sender.ts).
import type { Dispatcher } from 'undici';

export type ResponseHeaders = Record<string, string | string[] | undefined>;

export interface PostTarget {
  origin: string;
  /** Path and query. */
  path: string;
}

export interface PostOptions {
  /** Deadline of the whole exchange: waiting for a connection, headers and body. */
  timeoutMs: number;
  /** Body bytes read (and discarded) at most: a longer body ends the exchange and its connection. */
  maxResponseBytes: number;
  /** Stops the exchange (shutdown); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Bytes of the body's start kept for the delivery log (the rest is counted and dropped). */
  keepBytes?: number;
}

export interface PostAnswer {
  status: number;
  headers: ResponseHeaders;
  /** The body's first `keepBytes` bytes, as text (a character cut at the end is replaced). */
  body?: string;
}

/** The deadline's error: classified by the sender as a timeout to retry. */
export class PostTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * Resolves with the final status and headers once the body has ended, was cut at the cap, or broke
 * off after the status line (the status decides the outcome either way). Rejects when no status
 * arrived: the connection's error, the deadline (PostTimeoutError) or the stop signal's reason.
 */
export function postOnce(agent: Dispatcher, target: PostTarget, headers: Record<string, string>, body: string, o: PostOptions): Promise<PostAnswer> {
  return new Promise<PostAnswer>((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let answer: PostAnswer | undefined;
    let settled = false;
    /** Why the exchange was stopped before it reached a socket: its request is aborted with it. */
    let stopped: unknown;
    let read = 0;
    const keep = o.keepBytes ?? 0;
    let kept: Buffer[] | undefined;
    let keptBytes = 0;
    const settle = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onStop);
      if (answer && kept) answer.body = (kept.length === 1 ? kept[0]! : Buffer.concat(kept)).toString('utf8');
      if (answer) resolve(answer);
      else reject(err);
    };
    // Before the request reaches a socket there is no controller yet: the exchange settles now and
    // onRequestStart aborts the request when it comes.
    const stop = (reason: unknown) => {
      stopped = reason;
      if (controller && !controller.aborted) controller.abort(reason as Error);
      settle(reason);
    };
    const timer = setTimeout(() => stop(new PostTimeoutError(`no response within ${o.timeoutMs} ms`)), o.timeoutMs);
    const onStop = () => stop(o.signal!.reason);
    if (o.signal?.aborted) return onStop();
    o.signal?.addEventListener('abort', onStop, { once: true });

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (stopped !== undefined) c.abort(stopped as Error);
      },
      onResponseStart(_c, status, responseHeaders) {
        if (status >= 200) answer = { status, headers: responseHeaders as ResponseHeaders };
      },
      onResponseData(c, chunk) {
        read += chunk.length;
        if (keptBytes < keep && answer) {
          const part = chunk.length <= keep - keptBytes ? chunk : chunk.subarray(0, keep - keptBytes);
          (kept ??= []).push(Buffer.from(part));
          keptBytes += part.length;
        }
        if (read > o.maxResponseBytes) {
          c.abort(new Error(`response body over ${o.maxResponseBytes} bytes`));
          settle(undefined);
        }
      },
      onResponseEnd() {
        settle(undefined);
      },
      onResponseError(_c, err) {
        settle(err);
      },
    };
    try {
      agent.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers, body }, handler);
    } catch (err) {
      settle(err);
    }
  });
}
