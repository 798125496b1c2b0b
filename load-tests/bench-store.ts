// Micro-benchmark of the embedded store's writes on the callback path: an outbox row with its
// signed payload (~2.8 kB line) inserted, updated and read, and a trigger_history row inserted and
// updated, 50 operations per event-loop turn (like a batch of firings); and on the location path,
// a user's last location replaced by a newer one. Prints CPU and wall time per operation,
// acknowledgement (the group commit's write) included.
// Run: npx tsx load-tests/bench-store.ts [--ops N] [--rounds N]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore } from '../src/store/store.js';
import { saveLastLocations } from '../src/store/locations.js';
import { historyRow, lastLocationRow, outboxRow } from './store-rows.js';
import { numberArg } from './bench-args.js';

const OPS = numberArg('ops', 20_000);
const ROUNDS = numberArg('rounds', 2);
const PER_TURN = 50;

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
  console.log(`  ${name.padEnd(30)} ${((cpu.user + cpu.system) / OPS).toFixed(1).padStart(6)} µs CPU  ${((wall * 1000) / OPS).toFixed(1).padStart(6)} µs wall`);
}

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-store-'));
  try {
    const store = await openStore({ kind: 'embedded', dataDir: dir });
    type Row = ReturnType<typeof outboxRow>;
    type Hist = ReturnType<typeof historyRow>;
    const outbox = store.collection<Row>('outbox');
    const history = store.collection<Hist>('trigger_history');
    console.log(`bench-store: ${OPS} operations per line, ${PER_TURN} per event-loop turn; outbox line ${JSON.stringify(outboxRow('x', 0)).length} bytes`);
    const USERS = 2000;
    await saveLastLocations(store, Array.from({ length: USERS }, (_, u) => lastLocationRow(u, 0)));
    for (let r = 0; r < ROUNDS; r++) {
      const id = (i: number) => `r${r}-${i}`;
      console.log(`round ${r + 1}`);
      await phase('outbox insertOne', (i) => outbox.insertOne(outboxRow(id(i), i)));
      await phase('outbox updateOne ($set)', (i) => outbox.updateOne(
        { _id: id(i), lease_owner: 'owner:1' },
        { $set: { status: 'delivered', delivered_at: i, lease_until: 0, attempts: 1, updated_at: i }, $unset: { last_error: '' } },
      ));
      await phase('outbox findOne by _id', (i) => outbox.findOne({ _id: id(i) }));
      // The dispatcher's write for a delivered callback: its payload goes (outbox-repo.ts finish).
      await phase('outbox updateOne (delivered)', (i) => outbox.updateOne(
        { _id: id(i), lease_owner: 'owner:1' },
        { $set: { status: 'delivered', delivered_at: i, lease_until: 0, last_duration_ms: 3, attempts: 1, updated_at: i }, $unset: { last_error: '', payload: '' } },
      ));
      await phase('history insertOne', (i) => history.insertOne(historyRow(id(i), i)));
      await phase('history updateOne (dotted $set)', (i) => history.updateOne(
        { _id: id(i) },
        { $set: { 'delivery.status': 'delivered', 'delivery.attempts': 1, 'delivery.updated_at': i } },
      ));
      // What every location update stores: one replace filtered on the user and an older date.
      await phase('last location replace (newer)', (i) => saveLastLocations(store, [lastLocationRow(i % USERS, 1 + r * OPS + i)]));
    }
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
