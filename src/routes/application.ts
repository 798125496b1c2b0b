// /1/application/*: the caller's own application (reference §4.12), with its application token.
import { Type } from '@sinclair/typebox';
import type { AuthContext } from '../auth/authenticate.js';
import type { RouteApp } from './route-app.js';
import { IdParams, TokenFields } from '../schemas/common.js';
import { ApiHits, ApplicationLayers, ApplicationList, ApplicationObject, ApplicationUsage } from '../schemas/method-bodies.js';
import { applicationLayers, applicationObject, applicationUsage, ownApplication } from '../services/application-info.js';
import { apiHits, apiHitStats } from '../services/api-hits.js';
import { openApi } from '../http/openapi.js';

const TokenQuery = Type.Object(TokenFields);

export async function applicationRoutes(app: RouteApp) {
  const tags = ['application'];
  const ctx = app.ctx;
  const appOnly = app.guard('appToken');
  const named = (request: { auth: AuthContext; params: { id: string } }) => ownApplication(request.auth.app, request.params.id);
  const byId = { tags, params: IdParams, querystring: TokenQuery };

  app.get('/application/list', { schema: { tags, querystring: TokenQuery }, config: openApi({ ok: ApplicationList }), preValidation: appOnly }, async (request) =>
    ({ applications: [{ ...applicationObject(request.auth.app), stats: await apiHitStats(ctx, request.auth.app._id) }] }));

  app.get('/application/info/:id', { schema: byId, config: openApi({ ok: ApplicationObject }), preValidation: appOnly }, async (request) => {
    const own = named(request);
    return { ...applicationObject(own), stats: await apiHitStats(ctx, own._id) };
  });

  // Its page was lost: the shape is this service's (docs/api.md).
  app.get('/application/api_hits/:id', { schema: byId, config: openApi({ ok: ApiHits }), preValidation: appOnly }, async (request) =>
    apiHits(ctx, named(request)._id));

  app.get('/application/layers/:id', { schema: byId, config: openApi({ ok: ApplicationLayers }), preValidation: appOnly }, async (request) =>
    applicationLayers(ctx, named(request)));

  app.get('/application/usage/:id', { schema: byId, config: openApi({ ok: ApplicationUsage }), preValidation: appOnly }, async (request) =>
    applicationUsage(ctx, named(request)));
}
