// /1/geonote/*: notes left at a place for the caller (reference §4.2), with the user's token.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RouteApp } from './route-app.js';
import { DateInput, Id, IdParams, Latitude, Longitude, Radius, ShortText, TokenFields } from '../schemas/common.js';
import { GeonoteCreated, GeonoteInfo, GeonoteList } from '../schemas/method-bodies.js';
import { createGeonote, geonoteInfo, listRecentGeonotes, listSetGeonotes } from '../services/geonotes.js';
import { headerZoneOf } from '../services/request-zone.js';
import { viewerOf, type Viewer } from '../services/viewer.js';
import { openApi } from '../http/openapi.js';

const CreateBody = Type.Object({
  ...TokenFields,
  text: Type.String({ minLength: 1, maxLength: 2000 }),
  place_id: Type.Optional(Id),
  place_name: Type.Optional(ShortText(200)),
  latitude: Type.Optional(Latitude),
  longitude: Type.Optional(Longitude),
  radius: Type.Optional(Radius),
  span_longitude: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 360 })),
  date_from: Type.Optional(DateInput),
  date_to: Type.Optional(DateInput),
  delay_minutes: Type.Optional(Type.Number({ minimum: 0, maximum: 525_600 })),
  from_name: Type.Optional(ShortText(200)),
  from_email: Type.Optional(ShortText(320)),
});

const TokenQuery = Type.Object(TokenFields);

export async function geonoteRoutes(app: RouteApp) {
  const tags = ['geonote'];
  const ctx = app.ctx;
  const user = app.guard('userToken');
  const me = (request: FastifyRequest) => viewerOf(request.auth, headerZoneOf(request)) as Viewer & { userId: string };

  app.post('/geonote/create', { schema: { tags, body: CreateBody }, config: openApi({ ok: GeonoteCreated, errors: [404] }), preValidation: user }, async (request) =>
    createGeonote(ctx, me(request), request.body));

  app.get('/geonote/list_set', { schema: { tags, querystring: TokenQuery }, config: openApi({ ok: GeonoteList }), preValidation: user }, async (request) =>
    listSetGeonotes(ctx, me(request)));

  app.get('/geonote/list_recent', { schema: { tags, querystring: TokenQuery }, config: openApi({ ok: GeonoteList }), preValidation: user }, async (request) =>
    listRecentGeonotes(ctx, me(request)));

  app.get('/geonote/info/:id', { schema: { tags, params: IdParams, querystring: TokenQuery }, config: openApi({ ok: GeonoteInfo }), preValidation: user }, async (request) =>
    geonoteInfo(ctx, me(request), request.params.id));
}
