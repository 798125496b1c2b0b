// GET /1/stream: the live message stream a phone's SDK keeps open (WebSocket), authenticated with
// the user token (`Authorization: OAuth <token>`, or `?access_token=` where a client cannot set
// headers, as browsers cannot for WebSockets). On connect the user's queued messages are sent,
// oldest first, then new ones as they arrive, each as {"type":"message","message":{...}} with the
// message/list item shape. The socket is one-way: what the client sends is ignored. A plain GET,
// without the upgrade, is a 426.
//
// @fastify/websocket is registered here, in this group's scope, because this is the only
// WebSocket route; a second registration elsewhere would attach a second upgrade listener.
import websocket from '@fastify/websocket';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { LiveSocket } from '../delivery/live-stream.js';
import { runtimeOf } from '../delivery/runtime.js';
import { apiError } from '../errors.js';
import { TokenFields } from '../schemas/common.js';

/** Pings keep proxies from closing an idle stream and find peers that vanished without a FIN. */
const PING_INTERVAL_MS = 30_000;

export async function streamRoutes(app: FastifyInstance) {
  await app.register(websocket, { options: { maxPayload: 4096 } });
  const ctx = app.ctx;

  app.route({
    method: 'GET',
    url: '/stream',
    // Hidden from the OpenAPI document, as @fastify/websocket hides `websocket: true` routes.
    schema: { tags: ['stream'], querystring: Type.Object(TokenFields), hide: true },
    preHandler: app.guard('userToken'),
    // Without the upgrade (RFC 9110 §15.5.22: a 426 names the protocol to switch to).
    handler: async () => {
      throw apiError('upgrade_required', 'GET /1/stream is a WebSocket: send the request as a WebSocket upgrade', { upgrade: 'websocket' });
    },
    wsHandler: streamHandler,
  });

  async function streamHandler(socket: WebSocket, request: FastifyRequest) {
    const { app: application, user } = request.auth;
    const live: LiveSocket = {
      send: (text) => new Promise((resolve, reject) => socket.send(text, (err) => (err ? reject(err) : resolve()))),
      isOpen: () => socket.readyState === socket.OPEN,
    };
    let detach: (() => void) | undefined;
    let closed = false;
    let alive = true;
    const ping = setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      socket.ping();
    }, PING_INTERVAL_MS);
    ping.unref();
    socket.on('pong', () => (alive = true));
    socket.on('close', () => {
      closed = true;
      clearInterval(ping);
      detach?.();
    });
    try {
      detach = await runtimeOf(ctx).live.attach(ctx, application._id, user!._id, user!.timezone || 'UTC', live);
      if (closed) detach();
    } catch (err) {
      request.log.error({ err }, 'live stream failed');
      socket.close(1011, 'stream failed');
    }
  }
}
