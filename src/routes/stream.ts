// GET /1/stream: the live message stream a phone's SDK keeps open (WebSocket), authenticated with
// the user token (`Authorization: OAuth <token>`, or `?access_token=` where a client cannot set
// headers, as browsers cannot for WebSockets). On connect the user's queued messages are sent,
// oldest first, then new ones as they arrive, each as {"type":"message","message":{...}} with the
// message/list item shape. The socket is one-way: what the client sends is ignored, and a frame
// over MAX_CLIENT_FRAME_BYTES closes it with 1009. Deleting the user closes it with 4401
// (delivery/live-stream.ts USER_DELETED); the service shutting down closes it with 1001. A plain
// GET, without the upgrade, is a 426.
//
// @fastify/websocket is registered here, in this group's scope, because this is the only
// WebSocket route; a second registration elsewhere would attach a second upgrade listener.
// It routes every upgrade it hears through Fastify, which would answer a 404 to the Socket.IO
// clients' WebSocket upgrades (/socket.io/, engine.io's: plugins/streaming.ts) before engine.io takes
// them, so it hears the server's upgrades through a filter that leaves those out.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import websocket from '@fastify/websocket';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RouteApp } from './route-app.js';
import type { WebSocket } from 'ws';
import { apiError } from '../errors.js';
import { openApi } from '../http/openapi.js';
import { doc } from '../schemas/response-objects.js';
import { TokenFields } from '../schemas/common.js';
import { attachLiveStream, type LiveSocket } from '../services/live-stream.js';
import { requestZone } from '../services/request-zone.js';

/** Pings keep proxies from closing an idle stream and find peers that vanished without a FIN. */
const PING_INTERVAL_MS = 30_000;
/** Clients have nothing to send; a frame this large is refused (ws closes with 1009). */
const MAX_CLIENT_FRAME_BYTES = 4096;

/** The close code ws chose for a client's protocol fault (kept on the error under a private symbol). */
function closeCodeOf(error: Error): unknown {
  const key = Object.getOwnPropertySymbols(error).find((k) => k.description === 'status-code');
  return key ? (error as unknown as Record<symbol, unknown>)[key] : undefined;
}

/**
 * Errors on an open stream. The only ones ws emits on a server socket are the client's protocol
 * faults (an oversized or malformed frame): ws has already sent the matching close (1009, 1002…),
 * so they are a warning with the user id (never the frame) and that close is left to finish.
 * Anything else is ours: logged as an error, and the socket is dropped.
 */
function streamError(error: Error, socket: WebSocket, request: FastifyRequest) {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('WS_ERR_')) {
    request.log.warn({ user_id: request.auth?.user?._id, code, close_code: closeCodeOf(error), reason: error.message }, 'stream client sent a bad frame');
    return;
  }
  request.log.error({ err: error }, 'live stream failed');
  socket.terminate();
}

/** Where engine.io (Socket.IO) takes its upgrades. */
const SOCKET_IO_PATH = '/socket.io/';

/** RFC 6455 §7.4.1 "going away": SDKs reconnect on it (the plugin's own close sends no code, 1005). */
const GOING_AWAY = 1001;

export async function streamRoutes(app: RouteApp) {
  // Added before the plugin's own preClose, which closes every client without a code.
  app.addHook('preClose', (done) => {
    for (const client of app.websocketServer?.clients ?? []) client.close(GOING_AWAY, 'server shutting down');
    done();
  });
  const upgrades = new EventEmitter();
  const forward = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!req.url?.startsWith(SOCKET_IO_PATH)) upgrades.emit('upgrade', req, socket, head);
  };
  app.server.on('upgrade', forward);
  app.addHook('onClose', (_instance, done) => {
    app.server.off('upgrade', forward);
    done();
  });
  // `server`: where the plugin listens for upgrades (its documented option), here the filter.
  await app.register(websocket, { options: { maxPayload: MAX_CLIENT_FRAME_BYTES, server: upgrades as Server }, errorHandler: streamError });
  const ctx = app.ctx;

  app.route({
    method: 'GET',
    url: '/stream',
    schema: {
      tags: ['stream'], querystring: Type.Object(TokenFields),
      description: 'A WebSocket: send the GET as an upgrade. The user\'s queued messages come first, oldest first, then new ones as they ' +
        'arrive, each as `{"type":"message","message":{…}}` in message/list\'s item shape. What the client sends is ignored.',
    },
    config: openApi({
      responses: {
        101: { description: 'Switching Protocols: the stream is open' },
        426: { description: 'upgrade_required: a plain GET, without the WebSocket upgrade', schema: doc('Error') },
      },
    }),
    preValidation: app.guard('userToken'),
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
      close: (code, reason) => socket.close(code, reason),
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
      // Messages are dated in the upgrade request's zone: its Timezone header's, else the user's.
      const timeZone = requestZone(request, user);
      detach = await attachLiveStream(ctx, application._id, user!._id, timeZone, live);
      if (closed) detach();
    } catch (err) {
      request.log.error({ err }, 'live stream failed');
      socket.close(1011, 'stream failed');
    }
  }
}
