// /1/location/tracking_profile and /1/location/delete_batch/:id (reference §4.3). Apart from the
// location group because that group reads JSON bodies as text for location/update.
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { Id, TokenFields } from '../schemas/common.js';
import { BatchDeleted, TrackingProfile } from '../schemas/method-bodies.js';
import { actingUser } from '../services/acting-user.js';
import { deleteBatch } from '../services/location-batches.js';
import { requestZone } from '../services/request-zone.js';
import { setTrackingProfile, trackingProfile, TRACKING_PROFILES } from '../services/tracking-profile.js';
import { openApi } from '../http/openapi.js';

const UserFields = { ...TokenFields, user_id: Type.Optional(Id) };
const ProfileName = Type.Union(TRACKING_PROFILES.map((p) => Type.Literal(p)), { description: 'realtime, logging, adaptive, rough or off' });

export async function locationSettingsRoutes(app: RouteApp) {
  const tags = ['location'];
  const ctx = app.ctx;
  const either = app.guard('userToken', 'appToken');

  app.get('/location/tracking_profile', { schema: { tags, querystring: Type.Object(UserFields) }, config: openApi({ ok: TrackingProfile, errors: [404] }), preValidation: either }, async (request) => {
    const user = await actingUser(ctx, request.auth, request.query.user_id);
    return trackingProfile(user, requestZone(request, user));
  });

  app.post('/location/tracking_profile', {
    schema: { tags, body: Type.Object({ ...UserFields, profile: ProfileName }) },
    config: openApi({ ok: TrackingProfile, errors: [404] }),
    preValidation: either,
  }, async (request) => {
    const { user_id, profile } = request.body;
    const user = await actingUser(ctx, request.auth, user_id);
    return setTrackingProfile(ctx, user, profile, requestZone(request, user));
  });

  app.post('/location/delete_batch/:id', {
    schema: { tags, params: Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{40}$', description: 'the batch location/history?batch=true answered' }) }), body: Type.Object(UserFields) },
    config: openApi({ ok: BatchDeleted, errors: [304] }),
    preValidation: either,
  }, async (request) => {
    const user = await actingUser(ctx, request.auth, request.body.user_id);
    return deleteBatch(ctx, user, request.params.id);
  });
}
