// /1/trigger/*: geofence triggers (reference §4.1); trigger/create takes JSON or form bodies (seed).
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { IdParams, TokenFields } from '../schemas/common.js';
import { TriggerBody, TriggerListQuery } from '../schemas/triggers.js';
import {
  createTrigger, deleteTrigger, listTriggers, triggerInfo, updateTrigger,
} from '../services/triggers.js';
import { headerZoneOf, requestZone } from '../services/request-zone.js';
import { viewerOf } from '../services/viewer.js';
import { createdReply } from './created-reply.js';
import { getOrPost } from './get-or-post.js';
import { ResultOk, TriggerList } from '../schemas/response-bodies.js';
import { doc } from '../schemas/response-objects.js';
import { openApi } from '../http/openapi.js';

const TokenBody = Type.Object(TokenFields);

export async function triggerRoutes(app: RouteApp) {
  const ctx = app.ctx;
  const tags = ['trigger'];
  const appOnly = app.guard('appToken');
  // An application token has no user: requestZone(request) is the Timezone header's zone, else UTC.

  app.post('/trigger/create', { schema: { tags, body: TriggerBody }, config: openApi({ ok: doc('Trigger'), conflict: doc('Trigger'), errors: [404] }), preValidation: appOnly }, async (request, reply) => {
    const res = await createTrigger(ctx, request.auth.app._id, request.auth.app.default_layer_id, request.body, requestZone(request));
    return createdReply(request, reply, res, `trigger/info/${res.body.trigger_id}`);
  });

  app.post('/trigger/update/:id', { schema: { tags, params: IdParams, body: TriggerBody }, config: openApi({ ok: doc('Trigger'), errors: [409] }), preValidation: appOnly }, async (request) =>
    updateTrigger(ctx, request.auth.app._id, request.params.id, request.body, requestZone(request)));

  getOrPost(app, '/trigger/delete/:id', { schema: { tags, params: IdParams, body: TokenBody }, config: openApi({ ok: ResultOk }), preValidation: appOnly }, async (request) =>
    deleteTrigger(ctx, request.auth.app._id, request.params.id));

  app.get('/trigger/info/:id', { schema: { tags, params: IdParams, querystring: TokenBody }, config: openApi({ ok: doc('Trigger') }), preValidation: appOnly }, async (request) =>
    triggerInfo(ctx, request.auth.app._id, request.params.id, requestZone(request)));

  app.get('/trigger/list', { schema: { tags, querystring: TriggerListQuery }, config: openApi({ ok: TriggerList, errors: [404] }), preValidation: app.guard('appToken', 'userToken') }, async (request) =>
    listTriggers(ctx, viewerOf(request.auth, headerZoneOf(request)), request.query));
}
