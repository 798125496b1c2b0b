// The one error handler: every failure leaves as {error_code, error, error_description}.
// Validation and parser errors are 4xx with a description that names the field; anything
// unexpected is logged and answered with a generic 500 that leaks nothing.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, apiError, type ErrorCode } from '../errors.js';
import { parseJsonText } from '../schemas/json-text.js';
import { dropRestOfBody } from './oversized-body.js';
import { validationMessage } from './validation-message.js';

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'invalid_token',
  403: 'access_denied',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
};

export const UNSUPPORTED_BODY = 'Send the body as application/json or application/x-www-form-urlencoded';

export function toApiError(err: FastifyError | ApiError | Error): ApiError {
  if (err instanceof ApiError) return err;
  const fe = err as FastifyError;
  if (fe.validation) {
    const { field, text, missing } = validationMessage(fe.validation, fe.validationContext ?? 'request');
    return apiError(missing ? 'missing_input' : 'invalid_input', `${field} ${text}`);
  }
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return apiError('payload_too_large', 'Request body is too large');
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return apiError('unsupported_media_type', UNSUPPORTED_BODY);
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500) return apiError(STATUS_CODES[status] ?? 'invalid_request', fe.message);
  return apiError('internal_error', 'An internal error occurred');
}

export function errorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const api = toApiError(err);
  if (api.status >= 500) request.log.error({ err, url: request.url }, 'request failed');
  // A 413 waits for the rest of the body (dropped), so the client can read it (http/oversized-body.ts).
  if (api.status === 413) return dropRestOfBody(request.raw).then(() => reply.code(api.status).headers(api.headers).send(api.body()));
  void reply.code(api.status).headers(api.headers).send(api.body());
}

/**
 * Fastify's `frameworkErrors`: requests its router refuses before any route runs (a path with bad
 * percent-encoding, a path segment over `maxParamLength`) would otherwise get Fastify's own body.
 */
export function frameworkErrorHandler(err: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const api =
    err.code === 'FST_ERR_BAD_URL' ? apiError('invalid_request', 'The request path is not valid percent-encoded UTF-8')
    // Over maxParamLength (100) is over any id's 64 characters: invalid_input, as for a 65-character id.
    : err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? apiError('invalid_input', 'A path parameter is longer than any identifier (64 characters)')
    : toApiError(err);
  void reply.code(api.status).send(api.body());
}

const NO_METHOD = 'No method ';

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  const api = apiError('not_found', `${NO_METHOD}${request.method} ${request.url.split('?')[0]}`);
  void reply.code(404).send(api.body());
}

/** Whether an answer is the router's own 404 (no route has this method and path), not a route's "object not found". */
export function isNoRouteAnswer(statusCode: number, body: string): boolean {
  if (statusCode !== 404) return false;
  try {
    const parsed = JSON.parse(body) as { error_description?: unknown };
    return typeof parsed.error_description === 'string' && parsed.error_description.startsWith(NO_METHOD);
  } catch {
    return false;
  }
}

/** JSON bodies (schemas/json-text.ts): an empty body is `{}`; text that is not JSON, or not well-formed Unicode, is a 400. */
export function parseJsonBody(_req: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) {
  const parsed = parseJsonText(typeof body === 'string' ? body : body.toString('utf8'));
  if ('value' in parsed) done(null, parsed.value);
  else done(apiError(parsed.code, parsed.error));
}
