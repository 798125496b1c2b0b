// A tiny HTTP client for tests, JSON or form bodies, over one of two transports: real requests over
// real sockets (a base URL, the end-to-end tier) or Fastify's `inject` (an app, the fast tier:
// the same routing, parsing, hooks and replies, without a socket).
import qs from 'qs';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  /** `OAuth <token>` header. */
  token?: string;
  /** HTTP Basic client_id:client_secret. */
  basic?: [string, string];
  bearer?: string;
  json?: unknown;
  form?: Record<string, unknown>;
  query?: Record<string, unknown>;
  headers?: Record<string, string>;
  rawBody?: string;
  /** The client's address as the server sees it (inject only: a real request comes from loopback). */
  address?: string;
}

/** What `inject` needs of a Fastify app (a getter, so a restarted app is picked up). */
export interface Injector {
  inject(opts: { method: string; url: string; headers: Record<string, string>; payload?: string; remoteAddress?: string }): PromiseLike<{
    statusCode: number;
    body: string;
    headers: Record<string, string | string[] | number | undefined>;
  }>;
}

export class Api {
  /** A base URL (`http://127.0.0.1:port`) for real requests, or an app to inject into. */
  constructor(readonly base: string | Injector) {}

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `OAuth ${opts.token}`;
    if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
    if (opts.basic) headers.authorization = `Basic ${Buffer.from(`${opts.basic[0]}:${opts.basic[1]}`).toString('base64')}`;
    let body: string | undefined = opts.rawBody;
    if (opts.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.form !== undefined) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      body = qs.stringify(opts.form);
    }
    const query = opts.query ? `?${qs.stringify(opts.query)}` : '';
    const { status, text, headers: resHeaders } = await this.send(method, `${path}${query}`, headers, body, opts.address);
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status, body: parsed as T, headers: resHeaders };
  }

  get<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('GET', path, opts);
  }

  post<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('POST', path, opts);
  }

  private async send(method: string, url: string, headers: Record<string, string>, body: string | undefined, address?: string) {
    if (typeof this.base === 'string') {
      if (address !== undefined) throw new Error('a client address can be chosen only for an injected request');
      const res = await fetch(`${this.base}${url}`, { method, headers, body });
      return { status: res.status, text: await res.text(), headers: res.headers };
    }
    const res = await this.base.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body }), ...(address === undefined ? {} : { remoteAddress: address }) });
    const out = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(name, String(v));
    }
    return { status: res.statusCode, text: res.body, headers: out };
  }
}
