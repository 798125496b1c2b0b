// The floor: the least a service of this design must do for a location/update, run as its own
// process like the bare baseline and driven by the same load generator with the same bodies. The
// report's `floor_ratio_to_baseline` is then the single-point ratio that no implementation of the
// architecture can beat on this machine, and `ratio_to_floor` how far the service is from it. (In
// batch mode it is no bound: it parses every body here, where the service reads long ones in its
// shard.)
//
// Per request it does what the service cannot skip, each the cheapest way: read the token (one Map
// lookup), parse the body (Fastify's JSON parser, then the service's own point reader), hand the
// turn's points to a shard thread in one message (load-tests/floor-shard.ts: the world's circles in
// the service's spatial index and zone rule), then, in one writeSync per turn with no fsync (as the
// embedded store's group commit), append each request's newest point as its last location and
// each callback the points call for as an outbox line, and answer `{"response":"ok"}`. Each
// callback then goes once, signed with FLOOR_WEBHOOK_SECRET, through the service's own sender
// thread (src/delivery/sender-thread.ts) to FLOOR_CALLBACK_URL + its path. Without
// FLOOR_CALLBACK_URL it makes no callbacks at all (no outbox lines either): the floor of a service
// that sends none. No machines, dwell, one-time, windows, messages, history, retries, store indexes
// or logging.
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import Fastify from 'fastify';
import { ThreadedSender } from '../src/delivery/sender-thread.js';
import { readBodyValue } from '../src/schemas/location-points.js';
import { workerExecArgv } from '../workers/exec-argv.js';
import { floorToken, packBatch, type FloorAnswer, type FloorBatch, type FloorWorld } from './floor-shard.js';

const port = Number(process.env.PORT ?? 0);
const world = JSON.parse(readFileSync(process.env.FLOOR_WORLD!, 'utf8')) as FloorWorld;
const fd = openSync(process.env.FLOOR_FILE!, 'a');
const callbackBase = process.env.FLOOR_CALLBACK_URL;
const secret = process.env.FLOOR_WEBHOOK_SECRET ?? '';
if (callbackBase && !secret) throw new Error('FLOOR_CALLBACK_URL needs FLOOR_WEBHOOK_SECRET');

/** Token → user index, as the service's token cache answers a known token. */
const tokens = new Map<string, number>();
for (let i = 0; i < world.users.length; i++) tokens.set(floorToken(i), i);
/** Device time of each user's newest point taken: an older one moves nothing, as in the service. */
const lastAt = new Float64Array(world.users.length).fill(-Infinity);

const shard = new Worker(new URL('./floor-shard-entry.cjs', import.meta.url), { workerData: { world }, execArgv: workerExecArgv() });
const sender = callbackBase ? new ThreadedSender({ allowPrivate: true }) : undefined;

interface Turn {
  users: number[];
  lat: number[];
  lon: number[];
  acc: number[];
  /** Device time of each point, for its callback. */
  at: number[];
  lines: string[];
  waiting: Array<() => void>;
}

const newTurn = (): Turn => ({ users: [], lat: [], lon: [], acc: [], at: [], lines: [], waiting: [] });
let turn = newTurn();
let scheduled = false;
let nextId = 0;
const inShard = new Map<number, Turn>();

// A floor without its shard measures nothing: it stops, and the harness reports the errors.
let closing = false;
shard.on('error', (err) => {
  process.stderr.write(`floor shard failed: ${err.stack ?? err}\n`);
  process.exit(1);
});
shard.on('exit', (code) => {
  if (closing) return;
  process.stderr.write(`floor shard exited with code ${code}\n`);
  process.exit(1);
});

shard.on('message', (msg: { id: number } & FloorAnswer) => {
  const t = inShard.get(msg.id)!;
  inShard.delete(msg.id);
  for (const [i, path, on] of callbackBase ? msg.firings : []) {
    const eventId = randomUUID();
    const body = payload(eventId, t.users[i]!, path, on, t.at[i]!, t.lat[i]!, t.lon[i]!, t.acc[i]!);
    t.lines.push(`{"_id":"${eventId}","url":${JSON.stringify(path)},"payload":${body},"status":"pending"}\n`);
    queued.push({ eventId, url: callbackBase + path, body });
  }
  // Durable before the answer: the last locations and the outbox rows, in one write; then sent.
  if (t.lines.length > 0) writeSync(fd, t.lines.join(''));
  for (const resolve of t.waiting) resolve();
  sendMore();
});

// At most MAX_IN_FLIGHT callbacks at once, as the service's dispatcher bounds them: unbounded, the
// sender opened a connection per concurrent callback (~150), each read and written on its own.
const MAX_IN_FLIGHT = 32;
const queued: Array<{ eventId: string; url: string; body: string }> = [];
let inFlight = 0;
function sendMore() {
  while (inFlight < MAX_IN_FLIGHT && queued.length > 0) {
    const s = queued.shift()!;
    inFlight++;
    void sender!.attempt({ ...s, secret }).catch(() => undefined).finally(() => {
      inFlight--;
      sendMore();
    });
  }
}

/** A callback body shaped like the service's (reference §5), with this floor's values. */
function payload(eventId: string, user: number, path: string, on: string, at: number, lat: number, lon: number, acc: number): string {
  const date = new Date(at).toISOString();
  return JSON.stringify({
    layer: { bounds: false, description: '', extra: {}, icon: null, layer_id: 'floor', name: 'Floor', public: 0, type: 'normal', url: null },
    place: { place_id: path, name: path, description: '', latitude: lat, longitude: lon, radius: 100, extra: {}, active: 1, date_from: null, date_to: null, time_from: null, time_to: null, all_day: 1 },
    trigger: { trigger_id: path, key: path, type: 'callback', trigger_on: on, trigger_after: 0, one_time: 0, url: path, extra: {} },
    triggered_delay: '0',
    triggered_on: on,
    user: { user_id: String(user), username: `floor${user}`, name: null, display_name: null, timezone: 'UTC', timezone_offset: '+00:00', extra: {} },
    event_id: eventId,
    date,
    date_ts: Math.floor(at / 1000),
    location: { type: 'point', latitude: lat, longitude: lon, horizontal_accuracy: acc, date },
  });
}

function flush() {
  scheduled = false;
  const t = turn;
  turn = newTurn();
  const batch: FloorBatch = packBatch(t.users, t.lat, t.lon, t.acc, t.at);
  const id = nextId++;
  inShard.set(id, t);
  shard.postMessage({ id, batch });
}

function tokenOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const space = header.indexOf(' ');
  return space < 0 ? undefined : header.slice(space + 1);
}

const app = Fastify({ logger: false, bodyLimit: 2 * 1024 * 1024 });

app.get('/health', async () => ({ status: 'ok' }));
app.post('/1/location/update', async (request, reply) => {
  const user = tokens.get(tokenOf(request.headers.authorization) ?? '');
  if (user === undefined) return reply.code(401).send({ error_code: 401, error: 'invalid_token', error_description: 'Unknown access token' });
  const now = Date.now();
  const read = readBodyValue(request.body, now);
  if ('error' in read) return reply.code(400).send({ error_code: 400, error: read.code, error_description: read.error });
  // Every point newer than the user's newest goes to the shard, in order; the newest is stored.
  let newest: (typeof read.points)[number] | undefined;
  for (const p of [...read.points].sort((a, b) => a.at - b.at)) {
    if (p.at <= lastAt[user]!) continue;
    lastAt[user] = p.at;
    newest = p;
    turn.users.push(user);
    turn.lat.push(p.latitude);
    turn.lon.push(p.longitude);
    turn.acc.push(p.accuracy);
    turn.at.push(p.at);
  }
  if (newest) {
    turn.lines.push(`${JSON.stringify({ _id: user, date: newest.at, latitude: newest.latitude, longitude: newest.longitude, horizontal_accuracy: newest.accuracy, raw: newest.raw, received_at: now })}\n`);
  }
  await new Promise<void>((resolve) => {
    turn.waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
  return { response: 'ok' };
});

const close = async () => {
  closing = true;
  await app.close();
  await sender?.close();
  await shard.terminate();
  closeSync(fd);
  process.exit(0);
};
process.once('SIGTERM', () => void close());
process.once('SIGINT', () => void close());

await app.listen({ port, host: '127.0.0.1' });
