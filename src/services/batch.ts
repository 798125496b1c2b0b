// batch/run (reference §4.11): each job is one API call, run in request order through the same
// routes, parsing and credential checks as a call of its own. A job that fails answers its own
// error in its result; the jobs after it still run. The caller (the route) supplies `send`, which
// performs one call against the app; this module decides what that call is and shapes the results.
// What a batch answers is bounded (BATCH_ANSWER_LIMIT over its jobs' answers): a batch that would
// answer more stops at the job that passes it and is refused whole.
import { apiError, type ErrorBody } from '../errors.js';
import { BATCH_ANSWER_LIMIT } from '../schemas/batch.js';

export interface BatchJobInput {
  relative_url: string;
  body?: unknown;
  headers?: string[] | Record<string, string> | null;
  method?: 'GET' | 'POST';
}

export interface JobRequest {
  method: 'GET' | 'POST';
  /** The path under /1/ with its query string, normalized. */
  url: string;
  headers: Record<string, string>;
  /** JSON text, for a POST with a body. */
  payload?: string;
}

export interface JobResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  /** True when no route has this method and path (the router's own 404). */
  noRoute: boolean;
}

export interface BatchResult {
  code: number;
  headers: Array<{ name: string; value: string }>;
  body: unknown;
  time_ms: number;
}

const BASE = 'http://batch.invalid/1/';
// Framing and routing headers belong to the call the batch makes, never to a job's own lines.
const NOT_FORWARDED = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'content-type', 'expect', 'upgrade']);
// Of the connection the job never had: not part of its answer.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);
const TOKEN_PARAMS = ['access_token', 'oauth_token'];

/** The job's path and query under /1/, or undefined when it names something outside the API (an absolute URL, `../admin/...`). */
function jobUrl(relative: string): URL | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(relative) || relative.startsWith('/') || relative.startsWith('\\')) return undefined;
  let url: URL;
  try {
    url = new URL(relative, BASE);
  } catch {
    return undefined;
  }
  return url.origin === new URL(BASE).origin && url.pathname.startsWith('/1/') ? url : undefined;
}

/** The job's header lines as name → value (lower-case names); a line without a colon is refused. */
function jobHeaders(headers: BatchJobInput['headers']): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const entries: Array<[string, string]> = [];
  if (Array.isArray(headers)) {
    for (const line of headers) {
      const colon = line.indexOf(':');
      if (colon <= 0) return undefined;
      entries.push([line.slice(0, colon), line.slice(colon + 1)]);
    }
  } else if (headers) entries.push(...Object.entries(headers));
  for (const [name, value] of entries) {
    const key = name.trim().toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(key) || /[\r\n\0]/.test(value)) return undefined;
    if (!NOT_FORWARDED.has(key)) out[key] = value.trim();
  }
  return out;
}

const isEmptyBody = (body: unknown) =>
  body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0);

/** An empty array is how PHP writes an empty hash (geoloqi-php's `array()`): taken as `{}`. */
const jobBody = (body: unknown) => (Array.isArray(body) && body.length === 0 ? {} : body);

/** Whether the job names its own token (a parameter in its query or body): the batch's is then not added, as both would be a 400. */
function hasOwnToken(url: URL, body: unknown): boolean {
  if (TOKEN_PARAMS.some((p) => url.searchParams.has(p))) return true;
  return !!body && typeof body === 'object' && !Array.isArray(body) && TOKEN_PARAMS.some((p) => (body as Record<string, unknown>)[p] !== undefined);
}

/** Header names as the reference shows them: `Content-Type`, `Cache-Control`. */
const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

function resultOf(res: JobResponse, ms: number): BatchResult {
  const headers = Object.entries(res.headers)
    .filter(([name, v]) => v !== undefined && !HOP_BY_HOP.has(name.toLowerCase()))
    .map(([name, v]) => ({ name: headerName(name), value: Array.isArray(v) ? v.join(', ') : String(v) }));
  let body: unknown = res.body;
  try {
    body = res.body === '' ? null : JSON.parse(res.body);
  } catch {
    // Not JSON (location/history.gpx): the text as it came.
  }
  return { code: res.statusCode, headers, body, time_ms: Math.round(ms * 1000) / 1000 };
}

const refused = (description: string, ms: number): BatchResult => {
  const err = apiError('invalid_input', description);
  const body: ErrorBody = err.body();
  return { code: err.status, headers: [{ name: 'Content-Type', value: 'application/json; charset=utf-8' }], body, time_ms: ms };
};

const MIB = 1024 * 1024;

/** The refusal of a batch whose answers pass the cap at job `i` (jobs up to it ran, the others not). */
function answerTooLarge(i: number, jobs: number, cap: number): Error {
  const size = cap % MIB === 0 ? `${cap / MIB} MiB` : `${cap} bytes`;
  const rest = jobs - i - 1;
  return apiError(
    'invalid_input',
    `batch: the answers of jobs 0 to ${i} add up to more than ${size}, the most a batch answers. Jobs 0 to ${i} ran` +
      `${rest > 0 ? `; the ${rest} after ${rest > 1 ? 'them' : 'it'} did not` : ''}. Send fewer jobs per batch, or ask each for less (offset and limit)`,
  );
}

/**
 * Runs the jobs one after another. `authorization` is the batch's own credential (its header, or
 * its token as `OAuth <token>`): each job carries it unless the job gives its own.
 */
export async function runBatch(
  jobs: BatchJobInput[],
  authorization: string | undefined,
  send: (request: JobRequest) => Promise<JobResponse>,
  clock: () => number = () => performance.now(),
  answerLimit = BATCH_ANSWER_LIMIT,
): Promise<{ result: BatchResult[] }> {
  const result: BatchResult[] = [];
  let answered = 0;
  for (const [i, job] of jobs.entries()) {
    const started = clock();
    const url = jobUrl(job.relative_url);
    if (!url) {
      result.push(refused(`batch[${i}].relative_url must be a path under /1/, such as place/create`, 0));
      continue;
    }
    const headers = jobHeaders(job.headers);
    if (!headers) {
      result.push(refused(`batch[${i}].headers must be header lines such as "Timezone: …" or an object of names to values`, 0));
      continue;
    }
    if (authorization && !headers.authorization && !hasOwnToken(url, job.body)) headers.authorization = authorization;
    const path = url.pathname + url.search;
    const post = (body: unknown): JobRequest =>
      body === undefined || body === null
        ? { method: 'POST', url: path, headers }
        : { method: 'POST', url: path, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) };
    const body = jobBody(job.body);
    let res: JobResponse;
    if (job.method === 'POST' || (!job.method && !isEmptyBody(body))) res = await send(post(body));
    else {
      res = await send({ method: 'GET', url: path, headers });
      // A bodiless job for a POST-only method (layer/delete/:id sent as geoloqi-ruby's post(path)).
      if (!job.method && res.noRoute) res = await send(post(body));
    }
    answered += Buffer.byteLength(res.body);
    if (answered > answerLimit) throw answerTooLarge(i, jobs.length, answerLimit);
    result.push(resultOf(res, clock() - started));
  }
  return { result };
}
