// /1/trigger/state: the machine inspector (services/machine-inspector.ts), application token only.
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { Id, IdParams, TokenFields } from '../schemas/common.js';
import { triggerState, userMachines } from '../services/machine-inspector.js';
import { headerZoneOf } from '../services/request-zone.js';
import { TriggerState, UserMachines } from '../schemas/response-bodies.js';
import { openApi } from '../http/openapi.js';

export async function engineStateRoutes(app: RouteApp) {
  const tags = ['trigger'];
  const guard = app.guard('appToken');

  app.get('/trigger/state/:id', {
    schema: { tags, params: IdParams, querystring: Type.Object({ ...TokenFields, user_id: Type.Optional(Id), place_id: Type.Optional(Id) }) },
    config: openApi({ ok: TriggerState }),
    preValidation: guard,
  }, async (request) => triggerState(
    app.ctx, request.auth.app._id, request.params.id, request.query,
    headerZoneOf(request),
  ));

  app.get('/trigger/state', {
    schema: { tags, querystring: Type.Object({ ...TokenFields, user_id: Id }) },
    config: openApi({ ok: UserMachines, errors: [404] }),
    preValidation: guard,
  }, async (request) => userMachines(app.ctx, request.auth.app._id, request.query.user_id, headerZoneOf(request)));
}
