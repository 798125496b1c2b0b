// /1/location/*: phones post points; apps and phones read the last point and the history.
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { HistoryRange, TokenFields } from '../schemas/common.js';
import { JsonText } from '../schemas/json-text.js';
import { actingUser } from '../services/acting-user.js';
import { locationContext } from '../services/geocoder.js';
import { lastLocation, locationHistory, updateLocations } from '../services/locations.js';
import { requestZone } from '../services/request-zone.js';
import { LocationBatch } from '../schemas/location-batch.js';
import { LocationContext, LocationContextQuery } from '../schemas/location-context.js';
import { LocationHistory, LocationUpdated } from '../schemas/response-bodies.js';
import { doc } from '../schemas/response-objects.js';
import { openApi } from '../http/openapi.js';

const UserQuery = { ...TokenFields, user_id: Type.Optional(Type.String({ maxLength: 64 })) };

export async function locationRoutes(app: RouteApp) {
  const tags = ['location'];
  const ctx = app.ctx;
  const either = app.guard('userToken', 'appToken');

  // JSON bodies stay text in this group: location/update's points are read (and each bad point
  // named by index) in the engine's shard threads, off the main thread (services/locations.ts).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, new JsonText(body as string)));

  // Its one hook is the guard, which reads the header (or a token parameter) and never the JsonText's points.
  // Dates in and out in the request's zone: the Timezone header's, else the user's (services/request-zone.ts).
  app.post('/location/update', {
    schema: { tags, body: Type.Unknown() },
    config: openApi({ ok: LocationUpdated, body: LocationBatch, jsonOnly: true }),
    preValidation: app.guard('userToken'),
  }, async (request) => {
    const user = request.auth.user!;
    return updateLocations(ctx, ctx.locationSink, request.auth.app, user, request.body, requestZone(request, user));
  });

  app.get('/location/last', { schema: { tags, querystring: Type.Object(UserQuery) }, config: openApi({ ok: doc('LocationPoint'), errors: [404] }), preValidation: either }, async (request) => {
    const user = await actingUser(ctx, request.auth, request.query.user_id);
    return lastLocation(ctx, user, requestZone(request, user));
  });

  app.get('/location/history', {
    schema: {
      tags,
      querystring: Type.Object({
        ...UserQuery,
        ...HistoryRange,
        batch: Type.Optional(Type.Boolean({ description: 'true: also answer a `batch` id for location/delete_batch/:id' })),
      }),
    },
    config: openApi({ ok: LocationHistory, errors: [404] }),
    preValidation: either,
  }, async (request) => {
    const q = request.query;
    const user = await actingUser(ctx, request.auth, q.user_id);
    return locationHistory(ctx, user, q, requestZone(request, user));
  });

  // The named place a point is in, from bundled data (services/geocoder.ts); the iOS sample calls it
  // with a user token or with the application's key and secret (reference §4.3).
  app.get('/location/context', {
    schema: { tags, querystring: LocationContextQuery },
    config: openApi({ ok: LocationContext }),
    preValidation: app.guard('userToken', 'appToken', 'clientSecret'),
  }, async (request) => {
    const { latitude, longitude } = request.query;
    return locationContext(ctx, latitude, longitude);
  });
}
