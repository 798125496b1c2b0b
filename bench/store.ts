// The embedded store's hot writes, per operation, acknowledgement included: what a location
// update stores (the last location replaced by a newer one, history points, machine records,
// timeline entries) and what a firing stores and its delivery changes (outbox rows with a signed
// payload, trigger_history rows). Operations are issued 50 per event-loop turn, as a batch of
// points or firings is, each its own repository call. Prints CPU and wall time per operation and
// the database's size.
// Run: npx tsx bench/store.ts [--ops N] [--rounds N] [--sync full] [--per-write]
//   --sync full    sync the WAL at every commit (survives a power loss); default normal
//   --per-write    commit every write on its own instead of once per turn
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore } from '../src/store/store.js';
import { numberArg } from './args.js';
import { historyRow, machineRow, outboxRow, pointRow, timelineRow } from './store-rows.js';

const OPS = numberArg('ops', 20_000);
const ROUNDS = numberArg('rounds', 2);
const PER_TURN = 50;
const sync = process.argv.includes('--sync') && process.argv[process.argv.indexOf('--sync') + 1] === 'full' ? 'full' : 'normal';
const commitPerWrite = process.argv.includes('--per-write');

async function phase(name: string, f: (i: number) => Promise<unknown>) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < OPS; i += PER_TURN) {
    const turn: Array<Promise<unknown>> = [];
    for (let j = i; j < i + PER_TURN; j++) turn.push(f(j));
    await Promise.all(turn);
  }
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  console.log(`  ${name.padEnd(34)} ${((cpu.user + cpu.system) / OPS).toFixed(1).padStart(7)} µs CPU ${((wall * 1000) / OPS).toFixed(1).padStart(7)} µs wall`);
}

async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const f of await readdir(dir)) total += (await stat(path.join(dir, f))).size;
  return total;
}

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-store-'));
  try {
    const store = await openStore({ kind: 'embedded', dataDir: dir, sync, commitPerWrite });
    type Row = ReturnType<typeof outboxRow>;
    const outbox = store.collection<Row>('outbox');
    const history = store.collection<ReturnType<typeof historyRow>>('trigger_history');
    console.log(`bench/store: ${OPS} operations a phase, ${PER_TURN} per turn; sync ${sync}, ${commitPerWrite ? 'a commit per write' : 'a commit per turn'}`);
    const USERS = 2000;
    await store.lastLocations.save(Array.from({ length: USERS }, (_, u) => pointRow(u, 0)));
    for (let r = 0; r < ROUNDS; r++) {
      const id = (i: number) => `r${r}-${i}`;
      console.log(`round ${r + 1}`);
      await phase('last location replace (newer)', (i) => store.lastLocations.save([pointRow(i % USERS, 1 + r * OPS + i)]));
      await phase('location history insert', (i) => store.locations.add([pointRow(i % USERS, 1 + r * OPS + i)]));
      await phase('machine record upsert', (i) => store.machines.apply([machineRow(r * OPS + i)]));
      await phase('timeline entry insert', (i) => store.timeline.add([timelineRow(r * OPS + i)]));
      await phase('outbox insertOne', (i) => outbox.insertOne(outboxRow(id(i), i)));
      await phase('outbox findOne by _id', (i) => outbox.findOne({ _id: id(i) }));
      // The dispatcher's write for a delivered callback: its payload goes.
      await phase('outbox updateOne (delivered)', (i) => outbox.updateOne(
        { _id: id(i), lease_owner: 'owner:1' },
        { $set: { status: 'delivered', delivered_at: i, lease_until: 0, last_duration_ms: 3, attempts: 1, updated_at: i }, $unset: { last_error: '', payload: '' } },
      ));
      await phase('history insertOne', (i) => history.insertOne(historyRow(id(i), i)));
      await phase('history updateOne (dotted $set)', (i) => history.updateOne(
        { _id: id(i) },
        { $set: { 'delivery.status': 'delivered', 'delivery.attempts': 1, 'delivery.updated_at': i } },
      ));
    }
    await store.close();
    console.log(`data on disk after close: ${((await sizeOf(dir)) / 1e6).toFixed(1)} MB`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
