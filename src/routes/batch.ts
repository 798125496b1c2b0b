// /1/batch/run (reference §4.11): many calls in one request. Each job is injected into this same
// app (Fastify's inject: the same routes, parsing, guards and error replies as a call of its own),
// one after another; services/batch.ts decides each call and shapes the results.
import type { RouteApp } from './route-app.js';
import { apiError } from '../errors.js';
import { isNoRouteAnswer } from '../http/error-handler.js';
import { openApi, TOKEN_SECURITY } from '../http/openapi.js';
import { BatchRunBody, BatchRunResult } from '../schemas/batch.js';
import { runBatch } from '../services/batch.js';

/** Set on every job's call: batch/run refuses a call that carries it, so a batch cannot run batches. */
const JOB_HEADER = 'x-batch-job';

type TokenParams = { access_token?: string; oauth_token?: string };

/**
 * The credential every job carries: the batch's Authorization header as sent, or its token
 * parameter as `OAuth <token>`. geoloqi-ruby sends its token both ways at once, so the two are
 * refused together only when they differ (a 400 as on any method).
 */
function batchAuthorization(header: string | undefined, body: TokenParams, query: unknown): string | undefined {
  const q = (query ?? {}) as Record<string, unknown>;
  const param = [body.access_token, body.oauth_token, q.access_token, q.oauth_token].find((v) => typeof v === 'string' && v !== '');
  const fromHeader = header && /^(OAuth|Bearer)\s+/i.test(header) ? header.replace(/^\S+\s+/, '').trim() : undefined;
  if (param !== undefined && header && param !== fromHeader) {
    throw apiError('invalid_request', 'The token in the Authorization header and the access_token parameter differ');
  }
  return header ?? (param !== undefined ? `OAuth ${param}` : undefined);
}

export async function batchRoutes(app: RouteApp) {

  // JSON only (reference §1): a form cannot carry the jobs' bodies.
  app.removeContentTypeParser('application/x-www-form-urlencoded');
  app.addContentTypeParser('application/x-www-form-urlencoded', (_request, _payload, done) =>
    done(apiError('unsupported_media_type', 'batch/run takes a JSON body (Content-Type: application/json)')));

  // No guard: each job is checked as a call of its own, so a batch without a token answers 401 per job.
  app.post('/batch/run', {
    schema: { tags: ['batch'], body: BatchRunBody, description: 'Credential: an access token, which every job carries unless it gives its own.' },
    config: openApi({ ok: BatchRunResult, security: TOKEN_SECURITY, jsonOnly: true }),
  }, async (request) => {
    if (request.headers[JOB_HEADER] !== undefined) throw apiError('invalid_input', 'batch/run cannot run inside a batch');
    const authorization = batchAuthorization(request.headers.authorization, request.body, request.query);
    return runBatch(request.body.batch, authorization, async (job) => {
      const res = await app.inject({
        method: job.method,
        url: job.url,
        headers: { ...job.headers, [JOB_HEADER]: '1' },
        // The client's address, so credential checks are throttled per client as for direct calls.
        remoteAddress: request.ip,
        ...(job.payload !== undefined ? { payload: job.payload } : {}),
      });
      return { statusCode: res.statusCode, headers: res.headers, body: res.body, noRoute: isNoRouteAnswer(res.statusCode, res.body) };
    });
  });
}
