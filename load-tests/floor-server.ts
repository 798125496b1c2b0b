// The floor: the least a service of this design must do for a location/update, run as its own
// process like the bare baseline and driven by the same load generator with the same bodies. The
// report's `floor_ratio_to_baseline` is then the ratio that no implementation of the architecture
// can beat on this machine, and `ratio_to_floor` how far the service is from it.
//
// Per request it does what the service cannot skip, each the cheapest way: read the token (one Map
// lookup), parse the body (Fastify's JSON parser, then the service's own point reader), append the
// newest point as a JSON line to a file (one writeSync per event-loop turn, no fsync, as the
// embedded store's group commit), hand the turn's points to a shard thread in one message and wait
// for its answer (the world's circles in the service's spatial index: enters and leaves per point),
// then answer `{"response":"ok"}`. No machines, history, callbacks, store indexes or logging.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import Fastify from 'fastify';
import { newestIndex, readBodyValue } from '../src/schemas/location-points.js';
import { workerExecArgv } from '../workers/exec-argv.js';
import { floorToken, type FloorBatch, type FloorCircle } from './floor-shard.js';

const port = Number(process.env.PORT ?? 0);
const users = Number(process.env.FLOOR_USERS ?? 0);
const circles = JSON.parse(readFileSync(process.env.FLOOR_CIRCLES!, 'utf8')) as FloorCircle[];
const fd = openSync(process.env.FLOOR_FILE!, 'a');

/** Token → user index, as the service's token cache answers a known token. */
const tokens = new Map<string, number>();
for (let i = 0; i < users; i++) tokens.set(floorToken(i), i);

const shard = new Worker(new URL('./floor-shard-entry.cjs', import.meta.url), { workerData: { circles }, execArgv: workerExecArgv() });

interface Waiting {
  resolve: () => void;
}

// One turn's requests: their newest points as columns, their lines, and who waits.
let turnUsers: number[] = [];
let turnLat: number[] = [];
let turnLon: number[] = [];
let turnLines: string[] = [];
let turnWaiting: Waiting[] = [];
let scheduled = false;
let nextId = 0;
const inShard = new Map<number, Waiting[]>();

shard.on('message', (msg: { id: number }) => {
  const waiting = inShard.get(msg.id)!;
  inShard.delete(msg.id);
  for (const w of waiting) w.resolve();
});
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

function flush() {
  scheduled = false;
  writeSync(fd, turnLines.join(''));
  const batch: FloorBatch = { users: Int32Array.from(turnUsers), lat: Float64Array.from(turnLat), lon: Float64Array.from(turnLon) };
  const id = nextId++;
  inShard.set(id, turnWaiting);
  shard.postMessage({ id, batch });
  turnUsers = [];
  turnLat = [];
  turnLon = [];
  turnLines = [];
  turnWaiting = [];
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
  const p = read.points[newestIndex(read.points)]!;
  turnUsers.push(user);
  turnLat.push(p.latitude);
  turnLon.push(p.longitude);
  turnLines.push(`${JSON.stringify({ user_id: user, date: p.at, latitude: p.latitude, longitude: p.longitude, horizontal_accuracy: p.accuracy, received_at: now })}\n`);
  await new Promise<void>((resolve) => {
    turnWaiting.push({ resolve });
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
  await shard.terminate();
  closeSync(fd);
  process.exit(0);
};
process.once('SIGTERM', () => void close());
process.once('SIGINT', () => void close());

await app.listen({ port, host: '127.0.0.1' });
