// The streaming plugin: the Socket.IO server of reference §4.8, on the app's own HTTP server at
// /socket.io/ (which also serves the browser client, /socket.io/socket.io.js). The protocol:
//   1. on connection the server emits `enter authentication`;
//   2. the client emits `token` with `group-<group token>`, `user-<username>` or `trip-<token>`;
//      an acknowledgement callback, if the client passes one, gets {"result":"ok"} or the error
//      body, and a refused token is also answered with a `token error` event (a JSON string);
//   3. the server emits `location` events, each a JSON string: a member's (or the user's) new last
//      location, or the fields of a message posted to the group (group/message).
// MapAttack's live map speaks an older dialect, also served: it waits for `enter group token` (or
// `enter authentication`), sends `group` with the bare group token (or `token` as above), and
// listens for `group` events, which a group's sockets get besides `location`. A trip's location
//      is sent only while its share link shows it; once it does not, its sockets leave the room.
// Who may subscribe to what is services/streaming.ts's. Locations reach the sockets through the
// service context's stream feed (services/stream-feed.ts), published once location/update has
// stored them. Rooms live in this process: with several API nodes, a socket only hears about
// updates made on its node (a Socket.IO adapter over a shared bus would lift this).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Server, type Socket } from 'socket.io';
import { ApiError } from '../errors.js';
import { lastLivePoint } from '../services/group-activity.js';
import type { StreamEvent } from '../services/stream-feed.js';
import {
  GROUP_ROOM_PREFIX, groupRoom, publishingGroupsOf, streamScope, subscriptionRoom, TRIP_ROOM_PREFIX, tripRoomOpen, tripRoomParts, userRoom, type StreamScope,
} from '../services/streaming.js';

/** Each socket watches a few groups or users at most; more `token` events than this are refused. */
const MAX_SUBSCRIPTIONS = 20;
/** Clients send only short `token` strings. */
const MAX_CLIENT_MESSAGE_BYTES = 4096;

declare module 'fastify' {
  interface FastifyInstance {
    io: Server;
  }
}

const errorBody = (err: unknown) =>
  err instanceof ApiError ? err.body() : { error_code: 500, error: 'internal_error', error_description: 'An internal error occurred' };

export default fp(
  async (app: FastifyInstance) => {
    const ctx = app.ctx;
    const io = new Server(app.server, {
      path: '/socket.io',
      // Any page may watch (geoloqi-js runs on the app developer's pages); no cookies are used.
      cors: { origin: '*' },
      maxHttpBufferSize: MAX_CLIENT_MESSAGE_BYTES,
      // Other upgrades (GET /1/stream) are @fastify/websocket's: engine.io must not end them.
      destroyUpgrade: false,
    });
    app.decorate('io', io);

    // Group rooms per application, so a location update reads the user's groups only when
    // someone watches a group of that application.
    const groupRooms = new Map<string, number>();
    const appOfRoom = (room: string) => room.slice(GROUP_ROOM_PREFIX.length).split(':')[0]!;
    io.of('/').adapter.on('create-room', (room: string) => {
      if (room.startsWith(GROUP_ROOM_PREFIX)) groupRooms.set(appOfRoom(room), (groupRooms.get(appOfRoom(room)) ?? 0) + 1);
    });
    io.of('/').adapter.on('delete-room', (room: string) => {
      if (!room.startsWith(GROUP_ROOM_PREFIX)) return;
      const n = (groupRooms.get(appOfRoom(room)) ?? 1) - 1;
      if (n > 0) groupRooms.set(appOfRoom(room), n);
      else groupRooms.delete(appOfRoom(room));
    });
    const watched = (room: string) => io.of('/').adapter.rooms.has(room);
    // Trip rooms per user (application and user id), so that a location update finds its trips.
    const tripRooms = new Map<string, Set<string>>();
    const userKeyOf = (room: string) => {
      const { appId, userId } = tripRoomParts(room);
      return `${appId}:${userId}`;
    };
    io.of('/').adapter.on('create-room', (room: string) => {
      if (!room.startsWith(TRIP_ROOM_PREFIX)) return;
      const rooms = tripRooms.get(userKeyOf(room)) ?? new Set<string>();
      tripRooms.set(userKeyOf(room), rooms.add(room));
    });
    io.of('/').adapter.on('delete-room', (room: string) => {
      if (!room.startsWith(TRIP_ROOM_PREFIX)) return;
      const rooms = tripRooms.get(userKeyOf(room));
      rooms?.delete(room);
      if (rooms?.size === 0) tripRooms.delete(userKeyOf(room));
    });

    async function onStreamEvent(e: StreamEvent): Promise<void> {
      if (e.kind === 'group_message') {
        const room = groupRoom(e.appId, e.groupToken);
        if (watched(room)) emitToGroups(room, JSON.stringify(e.message));
        return;
      }
      const rooms = watched(userRoom(e.appId, e.userId)) ? [userRoom(e.appId, e.userId)] : [];
      const groups: string[] = [];
      if (groupRooms.has(e.appId)) {
        for (const token of await publishingGroupsOf(ctx, e.appId, e.userId)) if (watched(groupRoom(e.appId, token))) groups.push(groupRoom(e.appId, token));
      }
      for (const room of [...(tripRooms.get(`${e.appId}:${e.userId}`) ?? [])]) {
        if (await tripRoomOpen(ctx, room)) rooms.push(room);
        else io.in(room).socketsLeave(room);
      }
      if (rooms.length === 0 && groups.length === 0) return;
      const point = await lastLivePoint(ctx, e.appId, e.userId);
      if (!point) return;
      const text = JSON.stringify(point);
      if (rooms.length > 0) io.to(rooms).emit('location', text);
      if (groups.length > 0) emitToGroups(groups, text);
    }

    /** A group's events go out as `location` (geoloqi-js) and as `group`, which MapAttack's live map listens to. */
    function emitToGroups(rooms: string | string[], text: string): void {
      io.to(rooms).emit('location', text);
      io.to(rooms).emit('group', text);
    }
    const stopListening = ctx.streams.on((e) => onStreamEvent(e).catch((err) => app.log.error({ err }, 'stream event not sent')));

    io.on('connection', (socket: Socket) => {
      let scope: Promise<StreamScope> | undefined;
      const subscribe = async (value: unknown, ack?: unknown) => {
        const reply = (body: object) => {
          if (typeof ack === 'function') ack(body);
          if ('error' in body) socket.emit('token error', JSON.stringify(body));
        };
        try {
          if (typeof value !== 'string') throw new ApiError('invalid_input', 'token must be a string: group-<token>, user-<username> or trip-<token>');
          if (socket.rooms.size > MAX_SUBSCRIPTIONS) throw new ApiError('invalid_request', `A socket may watch at most ${MAX_SUBSCRIPTIONS} groups or users`);
          const { auth, query } = socket.handshake;
          scope ??= streamScope(ctx, { access_token: auth.access_token ?? query.access_token, client_id: auth.client_id ?? query.client_id }, socket.handshake.address);
          await socket.join(await subscriptionRoom(ctx, await scope, value));
          reply({ result: 'ok' });
        } catch (err) {
          if (!(err instanceof ApiError)) app.log.error({ err }, 'stream subscription failed');
          reply(errorBody(err));
        }
      };
      socket.on('token', subscribe);
      // MapAttack's live map sends the bare group token as a `group` event.
      socket.on('group', (value: unknown, ack?: unknown) => subscribe(typeof value === 'string' ? `group-${value}` : value, ack));
      socket.emit('enter authentication');
      // What the server asked with before `enter authentication` (earlier MapAttack pages wait for it).
      socket.emit('enter group token');
    });

    app.addHook('preClose', async () => {
      stopListening();
      io.disconnectSockets(true);
      // Not io.close(): that would close the HTTP server, which is Fastify's to close.
      io.engine.close();
    });
  },
  { name: 'streaming', dependencies: ['store'] },
);
