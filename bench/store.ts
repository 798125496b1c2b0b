// The embedded store's hot writes, per operation, acknowledgement included: what a location
// update stores (the last location replaced by a newer one, history points, machine records,
// timeline entries) and what a firing stores and its delivery changes (a callback firing with a
// signed payload, its lease, its outcome and its attempt log entry). Operations are issued 50 per
// event-loop turn, as a batch of points or firings is, each its own repository call. Prints CPU
// and wall time per operation and the database's size.
// Run: npx tsx bench/store.ts [--ops N] [--rounds N] [--sync full] [--per-write]
//   --sync full    sync the WAL at every commit (survives a power loss); default normal
//   --per-write    commit every write on its own instead of once per turn
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore } from '../src/store/store.js';
import { numberArg } from './args.js';
import type { LeasedCallback } from '../src/store/firings.js';
import { attemptRow, callbackFiringRow, machineRow, pointRow, timelineRow } from './store-rows.js';

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
      await phase('firing insert (callback)', (i) => store.firings.insert([callbackFiringRow(id(i), i)]));
      // The queue leases what it reads, a page in one call; the payload comes back with the lease.
      const leased: LeasedCallback[] = [];
      await phase('lease (a page of 50, per callback)', async (i) => {
        if (i % PER_TURN !== 0) return;
        const ids = Array.from({ length: PER_TURN }, (_, k) => id(i + k));
        leased.push(...(await store.firings.leaseDue(ids, 'owner:1', 2 * OPS, OPS)));
      });
      for (const c of leased) c.attempts = 1;
      await phase('outcome update (delivered)', (i) => store.firings.finish(leased[i]!, { status: 'delivered', at: i, durationMs: 3 }, i));
      // Measured apart on rows of their own: the same update with its attempt log entry.
      await phase('firing insert (callback), again', (i) => store.firings.insert([callbackFiringRow(`${id(i)}b`, i)]));
      const again: LeasedCallback[] = [];
      for (let i = 0; i < OPS; i += PER_TURN) {
        again.push(...(await store.firings.leaseDue(Array.from({ length: PER_TURN }, (_, k) => `${id(i + k)}b`), 'owner:1', 2 * OPS, OPS)));
      }
      for (const c of again) c.attempts = 1;
      await phase('outcome update + attempt row', (i) => store.firings.finish(again[i]!, { status: 'delivered', at: i, durationMs: 3 }, i, attemptRow(`${id(i)}b`, i)));
    }
    await store.close();
    console.log(`data on disk after close: ${((await sizeOf(dir)) / 1e6).toFixed(1)} MB`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
