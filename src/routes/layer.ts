// /1/layer/*: layers of the application and users' subscriptions to them (reference §4.5, §6.8, §6.9).
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import type { AuthContext } from '../auth/authenticate.js';
import { Extra, Id, IdParams, Latitude, Longitude, ShortText, TokenFields } from '../schemas/common.js';
import { LayerByKeyQuery, LayerCreateBody, LayerInfoQuery, LayerUpdateBody, SubjectFields } from '../schemas/layers.js';
import { actingUserId } from '../services/acting-user.js';
import { layerUsers } from '../services/layer-users.js';
import { nearbyLayers, userClusters, type LayerNearbyQuery } from '../services/layer-nearby.js';
import { layerSubscription, setLayerSubscription } from '../services/layer-subscription.js';
import {
  createLayer, deleteLayer, layerByKey, layerInfo, layerSubscriptions, listLayers, updateLayer,
} from '../services/layers.js';
import { requireLayer, subscribeUser, unsubscribeUser } from '../services/subscriptions.js';
import { headerZoneOf, requestZone } from '../services/request-zone.js';
import { viewerOf } from '../services/viewer.js';
import { createdReply } from './created-reply.js';
import { actionFields, getOrPost } from './get-or-post.js';
import { LayerDetail, LayerList, LayerUsers, ResultOk, Subscribed, Unsubscribed } from '../schemas/response-bodies.js';
import { doc } from '../schemas/response-objects.js';
import { LayerSubscription, NearbyLayers, UserClusters } from '../schemas/method-bodies.js';
import { openApi } from '../http/openapi.js';

const TokenBody = Type.Object(TokenFields);
const NearbyFields = Type.Object({
  ...TokenFields, latitude: Type.Optional(Latitude), longitude: Type.Optional(Longitude), geocode: Type.Optional(ShortText(500)), application_id: Type.Optional(Id),
});
const SubscriptionFields = Type.Object({ ...SubjectFields.properties, settings: Type.Optional(Extra) });

export async function layerRoutes(app: RouteApp) {
  const ctx = app.ctx;
  const tags = ['layer'];
  const appOnly = app.guard('appToken');
  const appOrUser = app.guard('appToken', 'userToken');

  app.post('/layer/create', { schema: { tags, body: LayerCreateBody }, config: openApi({ ok: doc('Layer'), conflict: doc('Layer') }), preValidation: appOnly }, async (request, reply) => {
    const res = await createLayer(ctx, request.auth.app._id, request.body);
    return createdReply(request, reply, res, `layer/info/${res.body.layer_id}`);
  });

  app.post('/layer/update/:id', { schema: { tags, params: IdParams, body: LayerUpdateBody }, config: openApi({ ok: ResultOk, errors: [409] }), preValidation: appOnly }, async (request) =>
    updateLayer(ctx, request.auth.app._id, request.params.id, request.body));

  getOrPost(app, '/layer/delete/:id', { schema: { tags, params: IdParams, body: TokenBody }, config: openApi({ ok: ResultOk }), preValidation: appOnly }, async (request) =>
    deleteLayer(ctx, request.auth.app._id, request.params.id));

  app.get('/layer/info/:id', { schema: { tags, params: IdParams, querystring: LayerInfoQuery }, config: openApi({ ok: LayerDetail }), preValidation: appOnly }, async (request) =>
    layerInfo(ctx, await requireLayer(ctx, request.auth.app._id, request.params.id), request.query, requestZone(request)));

  app.get('/layer/info', { schema: { tags, querystring: LayerByKeyQuery }, config: openApi({ ok: LayerDetail, errors: [404] }), preValidation: appOnly }, async (request) =>
    layerInfo(ctx, await layerByKey(ctx, request.auth.app._id, request.query.key), request.query, requestZone(request)));

  app.get('/layer/list', { schema: { tags, querystring: TokenBody }, config: openApi({ ok: LayerList }), preValidation: appOrUser }, async (request) =>
    listLayers(ctx, viewerOf(request.auth)));

  const subject = (request: { auth: AuthContext; query: { user_id?: string }; body?: { user_id?: string } }) => {
    const viewer = viewerOf(request.auth);
    const fromBody = request.body?.user_id;
    return { viewer, userId: actingUserId(request.auth, fromBody ?? request.query.user_id) };
  };

  getOrPost(app, '/layer/subscribe/:id', {
    schema: { tags, params: IdParams, querystring: SubjectFields, body: SubjectFields },
    config: openApi({ ok: Subscribed }),
    preValidation: appOrUser,
  }, async (request) => {
    const { viewer, userId } = subject(request);
    // A user subscribes itself to public layers only; the application may subscribe its users anywhere.
    return subscribeUser(ctx, viewer.appId, request.params.id, userId, { publicOnly: viewer.userId !== undefined, headerZone: headerZoneOf(request) });
  });

  getOrPost(app, '/layer/unsubscribe/:id', {
    schema: { tags, params: IdParams, querystring: SubjectFields, body: SubjectFields },
    config: openApi({ ok: Unsubscribed }),
    preValidation: appOrUser,
  }, async (request) => {
    const { viewer, userId } = subject(request);
    return unsubscribeUser(ctx, viewer.appId, request.params.id, userId);
  });

  app.get('/layer/subscriptions', { schema: { tags, querystring: SubjectFields }, config: openApi({ ok: LayerList, errors: [404] }), preValidation: appOrUser }, async (request) => {
    const { viewer, userId } = subject({ auth: request.auth, query: request.query });
    return layerSubscriptions(ctx, viewer, userId);
  });

  app.get('/layer/users/:id', { schema: { tags, params: IdParams, querystring: TokenBody }, config: openApi({ ok: LayerUsers }), preValidation: appOnly }, async (request) =>
    layerUsers(ctx, request.auth.app._id, request.params.id, requestZone(request)));

  // POST per its page, GET per the index and the iOS sample (reference §4.5).
  getOrPost(app, '/layer/nearby', { schema: { tags, body: NearbyFields }, config: openApi({ ok: NearbyLayers }), preValidation: appOrUser }, async (request) =>
    nearbyLayers(ctx, viewerOf(request.auth), actionFields<LayerNearbyQuery>(request)));

  // GET retrieves the subscription; POST sets its `settings` (the undocumented "set" form).
  getOrPost(app, '/layer/subscription/:id', {
    schema: { tags, params: IdParams, querystring: SubjectFields, body: SubscriptionFields },
    config: openApi({ ok: LayerSubscription }),
    preValidation: appOrUser,
  }, async (request) => {
    const { viewer, userId } = subject(request);
    const id = request.params.id;
    const viewerHere = { ...viewer, timeZone: requestZone(request, request.auth.user) };
    if (request.method === 'GET') return layerSubscription(ctx, viewerHere, id, userId);
    return setLayerSubscription(ctx, viewerHere, id, userId, request.body?.settings);
  });

  app.get('/layer/user_clusters/:id', { schema: { tags, params: IdParams, querystring: TokenBody }, config: openApi({ ok: UserClusters }), preValidation: appOnly }, async (request) =>
    userClusters(ctx, request.auth.app._id, request.params.id));
}
