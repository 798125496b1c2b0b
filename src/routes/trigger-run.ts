// The delivery side of /1/trigger/* (reference §4.1): trigger/run/:id performs a trigger's action
// now (the callback POST or the message) and answers with the payload it sent; trigger/history
// lists firings with where their delivery stands. Creating and listing triggers is routes/trigger.ts.
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { listTriggerHistory } from '../services/trigger-history.js';
import { runTrigger, type RunInput } from '../services/trigger-run.js';
import { Flag, Id, IdParams, PagingQuery, TokenFields } from '../schemas/common.js';
import { rejectUnknown } from '../http/known-params.js';
import { userIdFor } from '../services/acting-user.js';
import { pageRequest } from '../services/paging.js';
import { headerZoneOf } from '../services/request-zone.js';
import { TriggerHistory, TriggerRun } from '../schemas/response-bodies.js';
import { openApi } from '../http/openapi.js';
import { actionFields, getOrPost } from './get-or-post.js';

const RunBody = Type.Object({ ...TokenFields, user_id: Type.Optional(Id), place_id: Type.Optional(Id) });
const HistoryQuery = Type.Object({
  ...TokenFields,
  ...PagingQuery,
  user_id: Type.Optional(Id),
  layer_id: Type.Optional(Id),
  place_id: Type.Optional(Id),
  trigger_id: Type.Optional(Id),
  include_gated: Type.Optional(Flag),
  late_after: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_592_000, description: 'seconds after its time beyond which a firing says why it was late (default 60)' })),
});


export async function triggerRunRoutes(app: RouteApp) {
  const tags = ['trigger'];
  const ctx = app.ctx;

  // A bodiless POST reads as {} (http/empty-body.ts): a callback trigger runs without a user.
  getOrPost(app, '/trigger/run/:id', { schema: { tags, params: IdParams, body: RunBody }, config: openApi({ ok: TriggerRun }), preValidation: app.guard('appToken') }, async (request) =>
    runTrigger(ctx, request.auth.app._id, request.params.id, actionFields<RunInput>(request)));

  app.get('/trigger/history', { schema: { tags, querystring: HistoryQuery }, config: openApi({ ok: TriggerHistory, errors: [404] }), preValidation: app.guard('userToken', 'appToken') }, async (request) => {
    const q = request.query;
    // A filter this route does not know would otherwise be ignored, and answer with everything.
    rejectUnknown(q, HistoryQuery, 'trigger/history');
    const auth = request.auth;
    // A user token sees its own firings only; an application token sees all its users', or one.
    const userId = userIdFor(auth, q.user_id);
    // Dated in that user's zone (with user_id or a user token), or the Timezone header's.
    const filter = { user_id: userId, layer_id: q.layer_id, place_id: q.place_id, trigger_id: q.trigger_id, include_gated: Boolean(q.include_gated), late_after: q.late_after };
    return listTriggerHistory(ctx, auth.app._id, filter, pageRequest(q), headerZoneOf(request));
  });
}
