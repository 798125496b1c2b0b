// HTTP to the service and the baseline: an undici Pool of keep-alive connections (far cheaper per
// request than fetch, which matters when the harness shares two cores with the server it measures).
import { Pool } from 'undici';

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
    const res = await this.pool.request({ method, path: `${path}${query}`, headers, body });
    const text = await res.body.text();
    let parsed: unknown = text;
    if (text && (res.headers['content-type'] ?? '').toString().includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep the text */
      }
    }
    return { status: res.statusCode, body: parsed as T, text };
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
