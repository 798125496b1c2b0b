// One registry of error codes: each maps to its HTTP status. Every error body the service sends is
// {error_code, error, error_description} (the Geoloqi shape), built here and nowhere else.

export const ERROR_STATUS = {
  /** location/delete_batch on a batch already deleted (reference §3: a 304, so the body never arrives). */
  not_modified: 304,
  invalid_request: 400,
  invalid_input: 400,
  /** A query parameter the route does not take (a filter it does not know would otherwise be ignored). */
  invalid_params: 400,
  missing_input: 400,
  cannot_delete: 400,
  /** Unsubscribing from the application's default layer, which every user belongs to. */
  cannot_unsubscribe: 400,
  invalid_grant: 400,
  unsupported_grant_type: 400,
  invalid_client: 401,
  invalid_token: 401,
  expired_token: 401,
  access_denied: 403,
  /**
   * share/* (reference §4.13): none of the share tokens sent is currently valid. Rendered as
   * `invalid_token` (ERROR_NAMES), with the reference's 403: the share token is the credential, and
   * an access token's `invalid_token` stays a 401.
   */
  share_tokens_invalid: 403,
  not_found: 404,
  method_not_allowed: 405,
  /** The request did not arrive within the server's requestTimeout. */
  request_timeout: 408,
  duplicate_key: 409,
  username_exists: 409,
  /** Share links (reference §4.13): the state asked for is the one the link is in. */
  already_active: 409,
  already_inactive: 409,
  already_expired: 409,
  /** trigger/history/redeliver: a callback whose delivery is still under way (one redelivery at a time). */
  redelivery_pending: 409,
  /** trigger/history/redeliver: a message or gated firing, or a callback whose payload retention removed. */
  cannot_redeliver: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  upgrade_required: 426,
  /** The request line and headers exceed the server's limit (http/client-errors.ts). */
  request_header_fields_too_large: 431,
  too_many_requests: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Registry entries whose `error` is rendered as another code's name (each with its own status). */
const ERROR_NAMES: Partial<Record<ErrorCode, ErrorCode>> = { share_tokens_invalid: 'invalid_token' };

export interface ErrorBody {
  error_code: number;
  error: ErrorCode;
  error_description: string;
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.status = ERROR_STATUS[code];
  }

  body(): ErrorBody {
    return { error_code: this.status, error: ERROR_NAMES[this.code] ?? this.code, error_description: this.description };
  }
}

export const apiError = (code: ErrorCode, description: string, headers?: Record<string, string>) =>
  new ApiError(code, description, headers);

export const notFound = (what: string) => apiError('not_found', `${what} not found`);
