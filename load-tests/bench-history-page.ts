// Micro-benchmark of a sorted page of one user's long list on the embedded store: location/history's
// newest points (sorted newest first, limit 10) and the points before a date, for a user with
// `--points` history points among other users' (the embedded store matches every point of the user
// for each page, then keeps the best few: see sortDocs in src/store/nedb-sync.ts).
// Run: npx tsx load-tests/bench-history-page.ts [--points N] [--rounds N]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore } from '../src/store/store.js';
import type { LocationDoc } from '../src/store/documents.js';
import { numberArg } from './bench-args.js';

const POINTS = numberArg('points', 180_000);
const ROUNDS = numberArg('rounds', 5);

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-history-'));
  try {
    const store = await openStore({ kind: 'embedded', dataDir: dir });
    const locations = store.collection<LocationDoc>('locations');
    const t0 = Date.UTC(2026, 0, 1);
    // Nine of every ten points are the measured user's, stored in date order as phones send them.
    const total = Math.ceil(POINTS / 0.9);
    for (let i = 0; i < total; i += 1000) {
      const docs = [];
      for (let j = i; j < Math.min(total, i + 1000); j++) {
        docs.push({
          _id: `p${j}`, app_id: 'app', user_id: j % 10 === 0 ? 'other' : 'user', date: t0 + j * 10_000,
          latitude: 45 + j * 1e-7, longitude: -122, horizontal_accuracy: 10, raw: null, received_at: t0 + j * 10_000,
        } as unknown as LocationDoc);
      }
      await locations.insertMany(docs);
    }
    console.log(`bench-history-page: ${POINTS} points of one user among ${total}`);
    for (let r = 0; r < ROUNDS; r++) {
      const a = performance.now();
      await locations.find({ app_id: 'app', user_id: 'user' }, { sort: { date: -1 }, limit: 10 }).toArray();
      const b = performance.now();
      await locations.find({ app_id: 'app', user_id: 'user', date: { $lt: t0 + 1_000_000 } }, { sort: { date: -1 }, limit: 10 }).toArray();
      const c = performance.now();
      console.log(`  round ${r + 1}: newest 10 ${(b - a).toFixed(1)} ms; 10 before a date ${(c - b).toFixed(1)} ms`);
    }
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
