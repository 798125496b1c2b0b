// A tiny HTTP client for end-to-end tests: real requests over real sockets, JSON or form bodies.
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
}

export class Api {
  constructor(readonly base: string) {}

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
    const res = await fetch(`${this.base}${path}${query}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  get<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('GET', path, opts);
  }

  post<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('POST', path, opts);
  }
}
