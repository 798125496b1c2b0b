// /1/message/*: messages to a user's phone (reference §4.10). message/send stores the message,
// writes it to the user's open live streams (/1/stream) and pushes it to their devices;
// message/list reads the stored messages back. `text` is meant to stay within 140 characters
// (the historical SMS limit); longer text, up to 2000, is accepted and delivered whole.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { messagesOf, sendMessage, type SendInput } from '../services/messages.js';
import { Id, PagingQuery, TokenFields, Url } from '../schemas/common.js';
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

export async function messageRoutes(app: FastifyInstance) {
  const tags = ['message'];
  const ctx = app.ctx;
  const either = app.guard('appToken', 'userToken');

  app.post('/message/send', { schema: { tags, body: SendBody }, config: openApi({ ok: MessageSent, errors: [404] }), preValidation: either }, async (request) =>
    sendMessage(ctx, request.auth, request.body as SendInput));

  app.get('/message/list', { schema: { tags, querystring: ListQuery }, config: openApi({ ok: MessageList, errors: [404] }), preValidation: either }, async (request) =>
    messagesOf(ctx, request.auth, request.query as { user_id?: string; offset?: number; limit?: number }, headerZoneOf(request)));
}
