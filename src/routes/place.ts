// /1/place/*: places on layers (reference §4.4).
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { apiError, notFound } from '../errors.js';
import { IdParams, TokenFields } from '../schemas/common.js';
import { PlaceBody, PlaceByKeyQuery, PlaceListQuery, PlaceNearbyQuery } from '../schemas/places.js';
import { placeObject } from '../services/geo-objects.js';
import {
  createPlace, deletePlace, listPlaces, nearbyPlaces, placeByKey, requirePlace, updatePlace,
} from '../services/places.js';
import { headerZoneOf, requestZone } from '../services/request-zone.js';
import { viewerOf } from '../services/viewer.js';
import { createdReply } from './created-reply.js';
import { getOrPost } from './get-or-post.js';
import { NearbyPlaces, PlaceList, ResultOk } from '../schemas/response-bodies.js';
import { doc } from '../schemas/response-objects.js';
import { openApi } from '../http/openapi.js';

const TokenBody = Type.Object(TokenFields);

export async function placeRoutes(app: RouteApp) {
  const ctx = app.ctx;
  const tags = ['place'];
  const appOnly = app.guard('appToken');
  const appOrUser = app.guard('appToken', 'userToken');
  // An application token has no user: requestZone(request) is the Timezone header's zone, else UTC.

  app.post('/place/create', { schema: { tags, body: PlaceBody }, config: openApi({ ok: doc('Place'), conflict: doc('Place'), errors: [404] }), preValidation: appOnly }, async (request, reply) => {
    const res = await createPlace(ctx, request.auth.app._id, request.auth.app.default_layer_id, request.body, requestZone(request));
    return createdReply(request, reply, res, `place/info/${res.body.place_id}`);
  });

  app.post('/place/update/:id', { schema: { tags, params: IdParams, body: PlaceBody }, config: openApi({ ok: doc('Place'), errors: [409] }), preValidation: appOnly }, async (request) =>
    updatePlace(ctx, request.auth.app._id, request.params.id, request.body, requestZone(request)));

  getOrPost(app, '/place/delete/:id', { schema: { tags, params: IdParams, body: TokenBody }, config: openApi({ ok: ResultOk }), preValidation: appOnly }, async (request) =>
    deletePlace(ctx, request.auth.app._id, request.params.id));

  app.get('/place/info/:id', { schema: { tags, params: IdParams, querystring: TokenBody }, config: openApi({ ok: doc('Place') }), preValidation: appOnly }, async (request) =>
    placeObject(await requirePlace(ctx, request.auth.app._id, request.params.id), ctx.now(), requestZone(request)));

  app.get('/place/info', { schema: { tags, querystring: PlaceByKeyQuery }, config: openApi({ ok: doc('Place'), errors: [404] }), preValidation: appOnly }, async (request) => {
    const { app: application } = request.auth;
    const place = await placeByKey(ctx, application._id, request.query.layer_id ?? application.default_layer_id, request.query.key);
    if (!place) throw notFound('Place');
    return placeObject(place, ctx.now(), requestZone(request));
  });

  app.get('/place/list', { schema: { tags, querystring: PlaceListQuery }, config: openApi({ ok: PlaceList, errors: [404] }), preValidation: appOrUser }, async (request) =>
    listPlaces(ctx, viewerOf(request.auth, headerZoneOf(request)), request.query));

  app.get('/place/nearby', { schema: { tags, querystring: PlaceNearbyQuery }, config: openApi({ ok: NearbyPlaces, errors: [404] }), preValidation: appOrUser }, async (request) => {
    const q = request.query;
    if (q.geocode !== undefined) throw apiError('invalid_input', 'geocode is not supported: send latitude and longitude');
    return nearbyPlaces(ctx, viewerOf(request.auth, headerZoneOf(request)), { ...q, distance: q.distance ?? q.radius });
  });

  // Listed by place/list's page, its own page lost (reference §4.4): place/list's unnamed places.
  app.get('/place/list_unnamed', { schema: { tags, querystring: PlaceListQuery }, config: openApi({ ok: PlaceList, errors: [404] }), preValidation: appOrUser }, async (request) =>
    listPlaces(ctx, viewerOf(request.auth, headerZoneOf(request)), { ...request.query, only_unnamed: true }));
}
