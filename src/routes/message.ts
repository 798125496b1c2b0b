// /1/message/*: messages to a user's phone (reference §4.10). message/send stores the message,
// writes it to the user's open live streams (/1/stream) and pushes it to their devices;
// message/list reads the stored messages back. `text` is meant to stay within 140 characters
// (the historical SMS limit); longer text, up to 2000, is accepted and delivered whole.
// message/broadcast sends one to each layer member near a point; message/device sends a JSON
// payload to the phone's live stream only.
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { messagesOf, sendMessage } from '../services/messages.js';
import { broadcast, countBroadcast } from '../services/broadcast.js';
import { sendToDevice } from '../services/device-messages.js';
import { Extra, Id, Latitude, Longitude, PagingQuery, Radius, TokenFields, Url } from '../schemas/common.js';
import { BroadcastCounts, DeviceSent } from '../schemas/method-bodies.js';
import { headerZoneOf } from '../services/request-zone.js';
import { MessageList, MessageSent } from '../schemas/response-bodies.js';
import { openApi } from '../http/openapi.js';

const SendBody = Type.Object({
  ...TokenFields,
  user_id: Type.Optional(Id),
  text: Type.String({ minLength: 1, maxLength: 2000 }),
  url: Type.Optional(Url),
  layer_id: Type.Optional(Id),
});

const ListQuery = Type.Object({ ...TokenFields, ...PagingQuery, user_id: Type.Optional(Id) });

const BroadcastBody = Type.Object({
  ...TokenFields,
  layer_id: Id,
  latitude: Latitude,
  longitude: Longitude,
  radius: Radius,
  text: Type.String({ minLength: 1, maxLength: 2000 }),
  url: Type.Optional(Url),
});
// count_broadcast sends nothing: `text` is taken (the reference's "same params") but not needed.
const CountBody = Type.Object({ ...BroadcastBody.properties, text: Type.Optional(Type.String({ maxLength: 2000 })) });

const DeviceBody = Type.Object({
  ...TokenFields,
  user_id: Type.Optional(Id),
  layer_id: Type.Optional(Id),
  // The JSON object the app on the phone receives; its keys must be storable (as `extra`'s).
  data: Extra,
});

export async function messageRoutes(app: RouteApp) {
  const tags = ['message'];
  const ctx = app.ctx;
  const either = app.guard('appToken', 'userToken');

  app.post('/message/send', { schema: { tags, body: SendBody }, config: openApi({ ok: MessageSent, errors: [404] }), preValidation: either }, async (request) =>
    sendMessage(ctx, request.auth, request.body));

  app.get('/message/list', { schema: { tags, querystring: ListQuery }, config: openApi({ ok: MessageList, errors: [404] }), preValidation: either }, async (request) =>
    messagesOf(ctx, request.auth, request.query, headerZoneOf(request)));

  // The application's: a user token cannot message everyone near a place.
  const appOnly = app.guard('appToken');
  app.post('/message/broadcast', { schema: { tags, body: BroadcastBody }, config: openApi({ ok: BroadcastCounts }), preValidation: appOnly }, async (request) =>
    broadcast(ctx, request.auth.app._id, request.body));

  app.post('/message/count_broadcast', { schema: { tags, body: CountBody }, config: openApi({ ok: BroadcastCounts }), preValidation: appOnly }, async (request) =>
    countBroadcast(ctx, request.auth.app._id, request.body));

  app.post('/message/device', { schema: { tags, body: DeviceBody }, config: openApi({ ok: DeviceSent, errors: [404] }), preValidation: either }, async (request) =>
    sendToDevice(ctx, request.auth, request.body));
}
