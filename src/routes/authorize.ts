// GET and POST /oauth/authorize (reference §2.4, RFC 6749 §4.1): the page an application sends its
// users to. They sign in with their username (or email) and password and allow the application;
// the browser goes back to the application's registered redirect_uri with a single-use code (and
// the request's state), which the application exchanges at /1/oauth/token. Not under /1/, as the
// historical URL was not; the OpenAPI document describes it as the page it is.
//
// With mode=popup (geoloqi-js's authenticateWithPopup), the answer the browser would carry back to
// the redirect URI is posted instead to the page that opened the popup, from a page that then
// closes it (authorize-page.ts popupPage): `{"oauth":{"auth":"<the redirect's parameters>"}}`, or
// `{"oauth":{"error":…,"error_description":…}}`, to the redirect URI's origin only.
//
// The form is CSRF-protected (@fastify/csrf-protection: a secret in an HttpOnly cookie, a token
// derived from it in the form), and passwords go through the same failure limits and hashing
// queue as grant_type=password (services/users.ts verifyLogin). A page, not an API answer: it has
// no CORS headers (http/pages.ts).
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteApp } from './route-app.js';
import { ApiError } from '../errors.js';
import { openApi } from '../http/openapi.js';
import { PAGE_CONFIG } from '../http/pages.js';
import {
  authorizeRequestError, authorizeTarget, issueCode, type AuthorizeRequest, type AuthorizeTarget,
} from '../services/auth-codes.js';
import { issueImplicitUserToken } from '../services/tokens.js';
import { verifyLogin } from '../services/logins.js';
import { errorPage, formActionSource, loginPage, pageHeaders, POPUP_SCRIPT_HASH, popupPage } from './authorize-page.js';

const field = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const RequestFields = {
  response_type: field(64),
  client_id: field(200),
  redirect_uri: field(2000),
  state: field(2000),
  scope: field(500),
  code_challenge: field(128),
  code_challenge_method: field(16),
  // Sent by the JavaScript and mobile SDKs; read as nothing.
  display: field(64),
  mode: field(64),
};
const Query = Type.Object(RequestFields);
const Body = Type.Object({
  ...RequestFields,
  username: field(320),
  password: field(1024),
  decision: field(16),
  _csrf: field(200),
});
const PAGE_DOCS =
  'A page for the user\'s browser, not an API call (docs/api.md, "Log in with the service"). GET shows the sign-in form ' +
  'for `client_id` and one of its registered `redirect_uri`s; POST (the form, with its CSRF token) checks the password ' +
  'and sends the browser back to the redirect URI with `code` (or, for `response_type=token`, the token in the fragment) ' +
  'and `state`, or with `error`.';
// A page (no CORS headers) that the API document still describes.
const pageDocs = (status: number, redirect: string, errors?: number[]) => ({ ...PAGE_CONFIG, ...openApi({
  responses: {
    200: { description: 'The sign-in form (again, with what was wrong), or with mode=popup the page that hands the answer to its opener', type: 'text/html' },
    [status]: { description: redirect },
  },
  errorsAs: 'text/html',
  ...(errors ? { errors } : {}),
  security: [{}],
}) });
type RequestT = AuthorizeRequest & { mode?: string };

/** Whether the request's answer goes to the popup's opener: mode=popup, and a web redirect URI (an origin to post to). */
const popupOf = (req: RequestT, target: AuthorizeTarget) => req.mode === 'popup' && /^https?:$/.test(new URL(target.redirectUri).protocol);

/** The fields the form carries from the GET to the POST. */
const carried = (req: RequestT, target: AuthorizeTarget) => ({
  mode: req.mode === 'popup' ? 'popup' : undefined, response_type: req.response_type, client_id: req.client_id, redirect_uri: target.sent ? target.redirectUri : undefined,
  state: req.state, scope: req.scope, code_challenge: req.code_challenge, code_challenge_method: req.code_challenge_method,
});

/**
 * The redirect URI with `params` added (state only when the request had one): to its query, or for
 * the implicit grant (`fragment`) as its fragment, which the browser keeps from the server
 * (RFC 6749 §4.2.2).
 */
function backTo(uri: string, params: Record<string, string | undefined>, fragment = false): string {
  const url = new URL(uri);
  const into = fragment ? new URLSearchParams() : url.searchParams;
  for (const [name, value] of Object.entries(params)) if (value !== undefined) into.append(name, value);
  if (fragment) url.hash = into.toString();
  return url.toString();
}

export async function authorizeRoutes(app: RouteApp) {
  // Both are encapsulated in this plugin: no other route reads or sets cookies.
  await app.register(fastifyCookie);
  await app.register(fastifyCsrf, {
    cookieKey: 'geotrigger_csrf',
    // Lax: the secret also comes along when the application's link opens the page, so two tabs share it.
    cookieOpts: { path: '/oauth', sameSite: 'lax', httpOnly: true, secure: 'auto' },
    getToken: (request: FastifyRequest) => (request.body as { _csrf?: string } | undefined)?._csrf,
  });

  const ctx = app.ctx;
  const html = (reply: FastifyReply, status: number, body: string, formAction?: string, scriptSrc?: string) =>
    reply.code(status).headers(pageHeaders(formAction, scriptSrc)).send(body);
  const redirect = (reply: FastifyReply, status: 302 | 303, uri: string) =>
    reply.code(status).headers({ ...pageHeaders(), location: uri }).send();
  /**
   * Back to the application with `params`: redirected, or for a popup posted to its opener. The
   * popup's `auth` is the parameters as the redirect carries them (what geoloqi-js reads from a fragment).
   */
  const answer = (reply: FastifyReply, status: 302 | 303, req: RequestT, target: AuthorizeTarget, params: Record<string, string | undefined>) => {
    const implicit = req.response_type === 'token';
    const uri = backTo(target.redirectUri, { ...params, state: req.state }, implicit);
    if (!popupOf(req, target)) return redirect(reply, status, uri);
    const sent = new URLSearchParams();
    for (const [name, value] of Object.entries({ ...params, state: req.state })) if (value !== undefined) sent.append(name, value);
    const message = params.error === undefined
      ? { oauth: { auth: sent.toString() } }
      : { oauth: { error: params.error, error_description: params.error_description, state: req.state } };
    return html(reply, 200, popupPage({
      message: JSON.stringify(message), origin: new URL(target.redirectUri).origin, fallback: uri,
      text: params.error === undefined ? `Signed in to ${target.app.name}.` : 'The sign-in did not complete.',
    }), undefined, POPUP_SCRIPT_HASH);
  };

  // Whatever goes wrong on this page is told on a page: a CSRF failure, a field too long, a 429.
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const status = err instanceof ApiError ? err.status : (err.statusCode ?? 500);
    if (status >= 500) request.log.error({ err }, 'authorize page failed');
    if (err instanceof ApiError) void reply.headers(err.headers);
    const message = err.code?.startsWith('FST_CSRF_')
      ? 'This sign-in form has expired or did not come from this site. Return to the application and start again.'
      : status >= 500 ? 'Something went wrong on our side. Please try again later.'
        : err instanceof ApiError ? err.description : 'The sign-in request is not valid.';
    return html(reply, status >= 400 ? status : 400, errorPage(message));
  });

  const showForm = (reply: FastifyReply, status: number, req: RequestT, target: AuthorizeTarget, extra: { username?: string; error?: string } = {}) =>
    html(reply, status, loginPage({
      appName: target.app.name, hidden: carried(req, target), csrfToken: reply.generateCsrf(), returnTo: target.redirectUri, ...extra,
    }), formActionSource(target.redirectUri));

  app.get('/oauth/authorize', { schema: { tags: ['oauth'], querystring: Query, description: PAGE_DOCS }, config: pageDocs(302, 'Back to the redirect URI with an `error`: a request the application should not have made') }, async (request, reply) => {
    const req = request.query;
    const target = await authorizeTarget(ctx, req);
    if ('problem' in target) return html(reply, 400, errorPage(target.problem));
    const bad = authorizeRequestError(req);
    if (bad) return answer(reply, 302, req, target, { error: bad.error, error_description: bad.description });
    return showForm(reply, 200, req, target);
  });

  app.post('/oauth/authorize', { schema: { tags: ['oauth'], body: Body, description: PAGE_DOCS }, config: pageDocs(303, 'Back to the redirect URI with `code` and `state` (or the token), or with an `error`', [403]), preHandler: app.csrfProtection }, async (request, reply) => {
    const req = request.body ?? {};
    const target = await authorizeTarget(ctx, req);
    if ('problem' in target) return html(reply, 400, errorPage(target.problem));
    const bad = authorizeRequestError(req);
    const implicit = req.response_type === 'token';
    const back = (params: Record<string, string>) => answer(reply, 303, req, target, params);
    if (bad) return back({ error: bad.error, error_description: bad.description });
    if (req.decision === 'deny') return back({ error: 'access_denied', error_description: 'The user denied the request' });
    if (!req.username || !req.password) return showForm(reply, 400, req, target, { username: req.username, error: 'Enter your username and password.' });
    let user;
    try {
      user = await verifyLogin(ctx, target.app._id, req.username, req.password, request.ip);
    } catch (err) {
      // Too many failed attempts (or too many waiting): said on the form, with its Retry-After.
      if (!(err instanceof ApiError) || err.status !== 429) throw err;
      void reply.headers(err.headers);
      return showForm(reply, 429, req, target, { username: req.username, error: err.description });
    }
    if (!user) return showForm(reply, 200, req, target, { username: req.username, error: 'The username or password is incorrect.' });
    if (implicit) {
      const t = await issueImplicitUserToken(ctx, target.app, user);
      return back({ access_token: t.access_token, token_type: 'bearer', expires_in: String(t.expires_in) });
    }
    const code = await issueCode(ctx, target, user, req);
    return back({ code });
  });
}
