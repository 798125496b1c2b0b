// GET /1/inspector/events: the web inspector's live notes (docs/api.md "Inspector events"), as
// server-sent events. Application token in the Authorization header (the page reads the stream with
// fetch, which can set it; a token never goes in the page's URLs). `user_id` narrows the notes to
// one user (404 if not this application's). Each note is `event: location` with `{"type",
// "user_id"}`: that user's points were stored and evaluated, so their states may have changed.
import type { ServerResponse } from 'node:http';
import { Type } from '@sinclair/typebox';
import type { RouteApp } from './route-app.js';
import { notFound } from '../errors.js';
import { openApi } from '../http/openapi.js';
import { Id, TokenFields } from '../schemas/common.js';

/** A comment line now and then keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 20_000;

export async function inspectorRoutes(app: RouteApp) {
  const ctx = app.ctx;
  const open = new Set<ServerResponse>();
  // Open streams would hold the server's close: they end first.
  app.addHook('preClose', (done) => {
    for (const res of open) res.end();
    open.clear();
    done();
  });

  app.get('/inspector/events', {
    schema: {
      tags: ['inspector'], querystring: Type.Object({ ...TokenFields, user_id: Type.Optional(Id) }),
      description: 'Server-sent events: `event: ready`, then `event: location` with `{"type","user_id"}` each time a user\'s points ' +
        'were stored and evaluated (their states may have changed); `user_id` narrows them to one user.',
    },
    config: openApi({ responses: { 200: { description: 'The event stream, open until the client leaves', type: 'text/event-stream' } } }),
    preValidation: app.guard('appToken'),
  }, async (request, reply) => {
    const appId = request.auth.app._id;
    const userId = request.query.user_id;
    if (userId && !(await ctx.store.users.get(appId, userId))) throw notFound('User');
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    res.write('event: ready\ndata: {}\n\n');
    const stop = app.inspectorEvents.watch(appId, userId, (event) => res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`));
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    open.add(res);
    res.on('close', () => {
      clearInterval(keepalive);
      stop();
      open.delete(res);
    });
  });
}
