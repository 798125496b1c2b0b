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
// listens for `group` events, which a group's sockets get besides `location`.
// Who may subscribe to what is services/streaming.ts's; services/stream-rights.ts checks it again
// before each event, and a subscription that no longer holds (a user's location made private, a
// group made invite-only or left, a share link closed) ends: the socket is told with a `token
// error` event and leaves the room; a socket whose own credential is refused is disconnected. The
// limits on sockets (idle ones closed, connections per address capped) are plugins/stream-limits.ts's.
// Locations reach the sockets through the service context's stream feed
// (services/stream-feed.ts), published once location/update has stored them. Rooms live in this
// process: with several API nodes, a socket only hears about updates made on its node (a Socket.IO
// adapter over a shared bus would lift this).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Server, type Socket } from 'socket.io';
import { ApiError } from '../errors.js';
import { lastLivePoint } from '../services/group-activity.js';
import type { StreamEvent } from '../services/stream-feed.js';
import { StreamRights, type Refusal } from '../services/stream-rights.js';
import {
  GROUP_ROOM_PREFIX, groupRoom, publishingGroupsOf, TRIP_ROOM_PREFIX, tripRoomParts, userRoom,
} from '../services/streaming.js';
import { AddressCap, IdleTimers } from './stream-limits.js';

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
    const { streamAuthTimeoutMs, streamConnectionsPerAddress } = ctx.config;
    const perAddress = new AddressCap(streamConnectionsPerAddress);
    const io = new Server(app.server, {
      path: '/socket.io',
      // Any page may watch (geoloqi-js runs on the app developer's pages); no cookies are used.
      cors: { origin: '*' },
      maxHttpBufferSize: MAX_CLIENT_MESSAGE_BYTES,
      // Other upgrades (GET /1/stream) are @fastify/websocket's: engine.io must not end them.
      destroyUpgrade: false,
      // A client that never even joins the namespace is closed as soon as one that never subscribes.
      connectTimeout: streamAuthTimeoutMs,
      allowRequest: (req, callback) => {
        const refused = perAddress.admit(req);
        callback(refused ?? null, refused === undefined);
      },
    });
    perAddress.follow(io.engine);
    app.decorate('io', io);
    const rights = new StreamRights(ctx);

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

    /**
     * The rooms, of `rooms`, that still have a socket once the subscriptions that no longer hold
     * have ended (services/stream-rights.ts).
     */
    async function stillWatched(rooms: string[]): Promise<string[]> {
      const kept: string[] = [];
      for (const room of rooms) {
        const ids = io.of('/').adapter.rooms.get(room);
        if (!ids) continue;
        for (const refusal of await rights.refusals(room, [...ids])) end(room, refusal);
        if (watched(room)) kept.push(room);
      }
      return kept;
    }

    /** Tells the socket its subscription ended, as a refused `token` is told; a refused credential closes it. */
    function end(room: string, { watcher, error, credential }: Refusal): void {
      const socket = io.of('/').sockets.get(watcher);
      if (!socket) return;
      socket.emit('token error', JSON.stringify(error.body()));
      if (credential) {
        socket.disconnect(true);
        return;
      }
      void socket.leave(room);
      if (rights.subscriptions(watcher) === 0) idleTimers.arm(socket);
    }

    async function onStreamEvent(e: StreamEvent): Promise<void> {
      if (e.kind === 'group_message') {
        const room = groupRoom(e.appId, e.groupToken);
        if (watched(room) && (await stillWatched([room])).length > 0) emitToGroups(room, JSON.stringify(e.message));
        return;
      }
      const trips = [...(tripRooms.get(`${e.appId}:${e.userId}`) ?? [])];
      const candidates = watched(userRoom(e.appId, e.userId)) ? [userRoom(e.appId, e.userId), ...trips] : trips;
      const groups: string[] = [];
      if (groupRooms.has(e.appId)) {
        for (const token of await publishingGroupsOf(ctx, e.appId, e.userId)) if (watched(groupRoom(e.appId, token))) groups.push(groupRoom(e.appId, token));
      }
      if (candidates.length === 0 && groups.length === 0) return;
      const rooms = await stillWatched(candidates);
      const groupsLeft = await stillWatched(groups);
      if (rooms.length === 0 && groupsLeft.length === 0) return;
      const point = await lastLivePoint(ctx, e.appId, e.userId);
      if (!point) return;
      const text = JSON.stringify(point);
      if (rooms.length > 0) io.to(rooms).emit('location', text);
      if (groupsLeft.length > 0) emitToGroups(groupsLeft, text);
    }

    /** A group's events go out as `location` (geoloqi-js) and as `group`, which MapAttack's live map listens to. */
    function emitToGroups(rooms: string | string[], text: string): void {
      io.to(rooms).emit('location', text);
      io.to(rooms).emit('group', text);
    }
    const stopListening = ctx.streams.on((e) => onStreamEvent(e).catch((err) => app.log.error({ err }, 'stream event not sent')));

    const idleTimers = new IdleTimers(streamAuthTimeoutMs);
    io.on('connection', (socket: Socket) => {
      const { auth, query } = socket.handshake;
      rights.add(socket.id, { access_token: auth.access_token ?? query.access_token, client_id: auth.client_id ?? query.client_id }, socket.handshake.address);
      idleTimers.arm(socket);
      socket.on('disconnect', () => {
        idleTimers.clear(socket);
        rights.remove(socket.id);
      });
      const subscribe = async (value: unknown, ack?: unknown) => {
        const reply = (body: object) => {
          if (typeof ack === 'function') ack(body);
          if ('error' in body) socket.emit('token error', JSON.stringify(body));
        };
        try {
          if (typeof value !== 'string') throw new ApiError('invalid_input', 'token must be a string: group-<token>, user-<username> or trip-<token>');
          if (socket.rooms.size > MAX_SUBSCRIPTIONS) throw new ApiError('invalid_request', `A socket may watch at most ${MAX_SUBSCRIPTIONS} groups or users`);
          const room = await rights.subscribe(socket.id, value);
          if (socket.disconnected) return;
          await socket.join(room);
          idleTimers.clear(socket);
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
      idleTimers.stop();
    });
  },
  { name: 'streaming', dependencies: ['store'] },
);

