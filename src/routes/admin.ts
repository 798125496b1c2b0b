// Operator API: applications. Enabled only when ADMIN_TOKEN is set; `Authorization: Bearer <token>`.
import { timingSafeEqual, createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RouteApp } from './route-app.js';
import { apiError } from '../errors.js';
import { IdParams } from '../schemas/common.js';
import {
  createApplication, deleteApplication, listApplications, rotateSecret, updateApplication,
} from '../services/applications.js';
import { ADMIN_SECURITY, openApi } from '../http/openapi.js';
import { Application, ApplicationCreated, ApplicationList, Deleted, SecretRotated } from '../schemas/response-bodies.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** What the OpenAPI document says of every operator method: the admin token, refused with a 401 (a 429 after too many wrong ones). */
const admin = { security: ADMIN_SECURITY, errors: [401, 429] };

/** An application is told apart by its name in app/list (and the CLI asks for one): not empty, not only spaces. */
const AppName = Type.String({ maxLength: 200, pattern: '\\S', description: 'a name with at least one character other than a space' });

const RedirectUris = Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
  maxItems: 20,
  description: 'Where /oauth/authorize may send users back, compared exactly (absolute URIs, no fragment)',
});

const CallbackBatchMax = Type.Integer({
  minimum: 1, maximum: 100, description: 'Callbacks to one URL sent together in one signed POST, at most (1, the default: one event per POST)',
});

export const ADMIN_DISABLED =
  'The admin API is disabled: set ADMIN_TOKEN (at least 16 characters) in the environment and restart the service';

export async function adminRoutes(app: RouteApp) {
  const adminToken = app.ctx.config.adminToken;
  if (!adminToken) {
    // Off: no admin route runs, but an operator calling one learns why instead of a bare "No method".
    // Answered in onRequest, before the body is read, so no body changes the answer.
    const disabled = async () => {
      throw apiError('not_found', ADMIN_DISABLED);
    };
    app.all('/admin/*', { schema: { hide: true }, onRequest: disabled }, disabled);
    return;
  }
  const expected = digest(adminToken);
  const tags = ['admin'];

  // Guesses are limited as client secrets are (auth/limits.ts): past the limit, a 429 until the window closes.
  const limits = app.ctx.authLimits;

  // Before the input checks, as the /1/ guards (plugins/auth.ts): no token, no word on the body.
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const header = request.headers.authorization ?? '';
    const presented = /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '') : '';
    if (!presented || !limits.checkAdminToken(request.ip, () => timingSafeEqual(digest(presented), expected))) {
      throw apiError('invalid_token', 'A valid admin token is required', { 'www-authenticate': 'Bearer realm="geotrigger-admin"' });
    }
  });

  app.post('/admin/app/create', {
    schema: { tags, body: Type.Object({ name: AppName, redirect_uris: Type.Optional(RedirectUris), callback_batch_max: Type.Optional(CallbackBatchMax) }, { additionalProperties: false }) },
    config: openApi({ ok: ApplicationCreated, ...admin }),
  }, async (request) => {
    const { name, ...settings } = request.body;
    return createApplication(app.ctx, name, settings);
  });

  app.get('/admin/app/list', { schema: { tags }, config: openApi({ ok: ApplicationList, ...admin }) }, async () => ({ applications: await listApplications(app.ctx) }));

  app.post('/admin/app/rotate_secret/:id', {
    schema: { tags, params: IdParams, body: Type.Optional(Type.Object({ webhook: Type.Optional(Type.Boolean()) }, { additionalProperties: false })) },
    config: openApi({ ok: SecretRotated, ...admin }),
  }, async (request) => {
    const { id } = request.params;
    return rotateSecret(app.ctx, id, request.body?.webhook ?? false);
  });

  app.post('/admin/app/update/:id', {
    schema: {
      tags, params: IdParams,
      body: Type.Object({
        name: Type.Optional(AppName), store_history: Type.Optional(Type.Boolean()), redirect_uris: Type.Optional(RedirectUris),
        permanent_tokens: Type.Optional(Type.Boolean({ description: 'pre-approves the application for account/permanent_token' })),
        callback_batch_max: Type.Optional(CallbackBatchMax),
      }, { additionalProperties: false }),
    },
    config: openApi({ ok: Application, ...admin }),
  }, async (request) => updateApplication(app.ctx, request.params.id, request.body));

  app.post('/admin/app/delete/:id', { schema: { tags, params: IdParams }, config: openApi({ ok: Deleted, ...admin }) }, async (request) =>
    deleteApplication(app.ctx, request.params.id));
}
