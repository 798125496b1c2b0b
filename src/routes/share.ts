// /1/link/*, /1/share/* and /1/trip/create: share links (reference §4.13). link/* manage the caller's own links with
// the user's token; share/* read what a link shares with the share token alone (an access token, if
// sent, must be valid and of the link's application: services/share-links.ts).
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RouteApp } from './route-app.js';
import { DateInput, HistoryRange, RangeDate, ShortText, TimeOfDay, TokenFields } from '../schemas/common.js';
import { LinkCreated, LinkStats, ShareInfo, SharedLast } from '../schemas/method-bodies.js';
import { LocationHistory, ResultOk } from '../schemas/response-bodies.js';
import { changeLink, createLink, linkStats, shareHistory, shareInfo, shareLast, type ShareViewer } from '../services/share-links.js';
import { headerZoneOf, requestZone } from '../services/request-zone.js';
import { openApi } from '../http/openapi.js';
import { publicBaseOf } from '../http/public-url.js';

const LinkToken = Type.String({ maxLength: 64 });
const CreateBody = Type.Object({
  ...TokenFields,
  minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 5_256_000 })),
  date_from: Type.Optional(DateInput),
  date_to: Type.Optional(DateInput),
  time_from: Type.Optional(TimeOfDay),
  time_to: Type.Optional(TimeOfDay),
  description: Type.Optional(ShortText(2000)),
  share_with: Type.Optional(ShortText(2000)),
});
// trip/create (its reference page was lost): a share link for one trip, so a window of dates, no daily hours.
const TripBody = Type.Object({
  ...TokenFields,
  minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 5_256_000 })),
  date_from: Type.Optional(DateInput),
  date_to: Type.Optional(DateInput),
  description: Type.Optional(ShortText(2000)),
});
// `token` is optional in the schema so that its absence is the reference's missing_input.
const TokenBody = Type.Object({ ...TokenFields, token: Type.Optional(LinkToken) });
const SharedQuery = { ...TokenFields, geoloqi_token: Type.String({ minLength: 1, maxLength: 2000 }) };

export async function shareRoutes(app: RouteApp) {
  const tags = ['share'];
  const ctx = app.ctx;
  const user = app.guard('userToken');
  const anyone = app.guard('appToken', 'userToken', 'anonymous');
  const zone = (request: FastifyRequest) => requestZone(request, request.auth.user);
  const viewer = (request: FastifyRequest): ShareViewer => ({ appId: request.auth?.app._id, address: request.ip });

  app.post('/link/create', { schema: { tags, body: CreateBody }, config: openApi({ ok: LinkCreated }), preValidation: user }, async (request) =>
    createLink(ctx, request.auth.user!, request.body, publicBaseOf(app), zone(request)));

  // What geoloqi-js's `new geoloqi.Socket('trip', token)` watches: the token of a link/create link.
  // Other fields (link/create's daily hours, share_with) are not a trip's: ignored, as unknown fields are.
  app.post('/trip/create', { schema: { tags, body: TripBody }, config: openApi({ ok: LinkCreated }), preValidation: user }, async (request) => {
    const { minutes, date_from, date_to, description } = request.body ?? {};
    return createLink(ctx, request.auth.user!, { minutes, date_from, date_to, description }, publicBaseOf(app), zone(request));
  });

  for (const action of ['expire', 'activate', 'deactivate'] as const) {
    app.post(`/link/${action}`, { schema: { tags, body: TokenBody }, config: openApi({ ok: ResultOk, errors: [404, 409] }), preValidation: user }, async (request) =>
      changeLink(ctx, request.auth.user!, request.body.token, action));
  }

  app.get('/link/stats', { schema: { tags, querystring: Type.Object({ ...TokenFields, token: LinkToken }) }, config: openApi({ ok: LinkStats, errors: [404] }), preValidation: user }, async (request) =>
    linkStats(ctx, request.auth.user!, request.query.token, zone(request)));

  app.get('/share/last', {
    schema: { tags, querystring: Type.Object({ ...SharedQuery, after: Type.Optional(RangeDate) }) },
    config: openApi({ ok: SharedLast, errors: [403, 404, 429] }),
    preValidation: anyone,
  }, async (request) => shareLast(ctx, viewer(request), request.query, headerZoneOf(request)));

  app.get('/share/history', {
    schema: {
      tags,
      querystring: Type.Object({
        ...SharedQuery,
        ...HistoryRange,
      }),
    },
    config: openApi({ ok: LocationHistory, errors: [403, 429] }),
    preValidation: anyone,
  }, async (request) => shareHistory(ctx, viewer(request), request.query, headerZoneOf(request)));

  app.get('/share/info', { schema: { tags, querystring: Type.Object(SharedQuery) }, config: openApi({ ok: ShareInfo, errors: [403, 429] }), preValidation: anyone }, async (request) =>
    shareInfo(ctx, viewer(request), request.query.geoloqi_token, headerZoneOf(request)));
}
