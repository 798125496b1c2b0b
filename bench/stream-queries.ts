// Micro-benchmark of the live stream's store reads on the embedded store: the poll for undelivered
// messages of every connected user (500 ids a query, as live-stream.ts polls; on MongoDB only,
// the embedded store having no other writer) and one user's replay page on connect,
// with `--users` users of `--messages` delivered messages each.
// Run: npx tsx bench/stream-queries.ts [--users N] [--messages N] [--rounds N]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { queuePage } from '../src/delivery/messages.js';
import type { ServiceContext } from '../src/services/context.js';
import type { MessageDoc } from '../src/store/documents.js';
import { openStore } from '../src/store/store.js';
import { numberArg } from './args.js';

const USERS = numberArg('users', 1000);
const MESSAGES = numberArg('messages', 1000);
const ROUNDS = numberArg('rounds', 4);

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-stream-'));
  try {
    const store = await openStore({ kind: 'embedded', dataDir: dir });
    const t0 = Date.UTC(2026, 0, 1);
    let n = 0;
    for (let u = 0; u < USERS; u++) {
      const docs: MessageDoc[] = [];
      for (let i = 0; i < MESSAGES; i++) {
        docs.push({ _id: `m${n++}`, app_id: 'app', user_id: `u${u}`, date: t0 + i * 1000, text: 'hello there', url: '', delivered_at: t0 + i * 1000 + 5 });
      }
      await store.messages.insertNew(docs);
    }
    const ids = Array.from({ length: USERS }, (_, u) => `u${u}`);
    const ctx = { store } as ServiceContext;
    console.log(`bench/stream-queries: ${USERS} connected users of ${MESSAGES} delivered messages each`);
    for (let r = 0; r < ROUNDS; r++) {
      const a = performance.now();
      for (let i = 0; i < ids.length; i += 500) {
        await store.messages.undelivered(ids.slice(i, i + 500), 1000);
      }
      const b = performance.now();
      await queuePage(ctx, 'app', 'u7', Date.now());
      const c = performance.now();
      console.log(`  round ${r + 1}: one poll ${(b - a).toFixed(1)} ms; one replay page (nothing queued) ${(c - b).toFixed(1)} ms`);
    }
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
