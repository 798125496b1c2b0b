// HTTP to the service and the baseline: an undici Pool of keep-alive connections (far cheaper per
// request than fetch, which matters when the harness shares two cores with the server it measures).
import { Pool, type Dispatcher } from 'undici';

export interface HttpResponse<T = unknown> {
  status: number;
  body: T;
  text: string;
}

export interface RequestInit {
  headers?: Record<string, string>;
  /** Serialised as JSON. */
  json?: unknown;
  /** Already-serialised JSON. */
  rawJson?: string;
  query?: Record<string, string | number>;
}

export class HttpError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${method} ${path} answered ${status}: ${typeof body === 'string' ? body.slice(0, 300) : JSON.stringify(body).slice(0, 300)}`);
  }
}

export class HttpClient {
  private readonly pool: Pool;

  constructor(
    readonly base: string,
    connections: number,
    timeoutMs = 30_000,
  ) {
    this.pool = new Pool(base, { connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  }

  async request<T = unknown>(method: 'GET' | 'POST', path: string, init: RequestInit = {}): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    let body: string | undefined;
    if (init.json !== undefined || init.rawJson !== undefined) {
      headers['content-type'] = 'application/json';
      body = init.rawJson ?? JSON.stringify(init.json);
    }
    const query = init.query ? `?${new URLSearchParams(Object.entries(init.query).map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
    const res = await exchange(this.pool, { method, path: `${path}${query}`, headers, body });
    const text = res.text;
    let parsed: unknown = text;
    if (text && (res.contentType ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep the text */
      }
    }
    return { status: res.status, body: parsed as T, text };
  }

  /** The request, throwing HttpError unless the status is accepted (2xx, or those in `ok`). */
  async call<T = unknown>(method: 'GET' | 'POST', path: string, init: RequestInit = {}, ok: number[] = []): Promise<T> {
    const res = await this.request<T>(method, path, init);
    if ((res.status < 200 || res.status > 299) && !ok.includes(res.status)) throw new HttpError(method, path, res.status, res.body);
    return res.body;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/**
 * One request through the pool's low-level dispatch(), the answer's text gathered from its chunks:
 * request() made a body stream per answer for text() to read. In single-point mode the baseline's
 * generator saturates its core (bare Fastify answers faster than the harness can send), so this
 * raised the baseline ~19 %; the pool's headers and body timeouts bound the exchange.
 */
function exchange(pool: Pool, opts: Dispatcher.DispatchOptions): Promise<{ status: number; contentType?: string; text: string }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let contentType: string | undefined;
    const chunks: Buffer[] = [];
    pool.dispatch(opts, {
      // undici takes a handler for its current interface only when it has this method.
      onRequestStart() {},
      onResponseStart(_c, statusCode, headers) {
        status = statusCode;
        const ct = headers['content-type'];
        contentType = Array.isArray(ct) ? ct[0] : ct;
      },
      onResponseData(_c, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        resolve({ status, contentType, text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8') });
      },
      onResponseError(_c, err) {
        reject(err);
      },
    });
  });
}

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
