// The floor against bare Fastify, alternated (`npx tsx bench/floor.ts`): rounds of the
// baseline server, the floor without callbacks and the floor with them (load-tests/floor-server.ts),
// each driven by the harness's own generator over the harness's world for a few seconds, so a slow
// minute of this VM falls on all three. Prints each round's points/s, the floors' ratios to the
// baseline of the same round, CPU per point of each server and of the harness, and the medians:
// the single-point ratio no implementation of this design can beat on this machine. (Batches are
// no bound: the floor parses every body on its main thread, where the service reads long bodies
// in its shard, off that thread; --batch is there to show it.)
//
//   --users N (2000)  --geofences N (2000)  --batch N (1)  --concurrency N (64)  --seconds S (15)
//   --warmup S (5)  --rounds N (4)  --seed N (1)  --cpu-prof DIR (profile the floor with callbacks)
// Only loopback is used; every phase ends by itself.
import path from 'node:path';
import { numberArg } from './args.js';
import { cpuWatch, floorCpu } from '../load-tests/cpu-budget.js';
import { floorFixture } from '../load-tests/floor-fixture.js';
import { LoadGenerator } from '../load-tests/load-generator.js';
import { ChildServer, freePort } from '../load-tests/processes.js';
import type { CallbackReceiver } from '../load-tests/receiver.js';
import { buildPlan } from '../load-tests/tracks.js';
import { DEFAULT_ZONES, generateWorld } from '../load-tests/world.js';

const USERS = numberArg('users', 2000);
const GEOFENCES = numberArg('geofences', 2000);
const BATCH = numberArg('batch', 1);
const CONCURRENCY = numberArg('concurrency', 64);
const SECONDS = numberArg('seconds', 15);
const WARMUP = numberArg('warmup', 5);
const ROUNDS = numberArg('rounds', 4);
const SEED = numberArg('seed', 1);
const PROFILE_DIR = process.argv.includes('--cpu-prof') ? process.argv[process.argv.indexOf('--cpu-prof') + 1] : undefined;

interface Phase {
  pps: number;
  serverUs: number;
  harnessUs: number;
  callbacksPerPoint?: number;
}

const loadS = ROUNDS * 3 * (WARMUP + SECONDS) + 10;
const world = generateWorld({
  seed: SEED, users: USERS, geofences: GEOFENCES, dwellS: 3, rateLimitS: 8, durationS: loadS, quietShare: 0.05, lateShare: 0.05, jitterShare: 0.1,
  spacingM: 350, runId: 'floor',
});
const plans = world.users.map((u) => buildPlan(world, u, { seed: SEED, durationS: loadS, dwellS: 3, zones: DEFAULT_ZONES }));
const ctx = { seed: SEED, world, plans, zones: DEFAULT_ZONES };

async function phase(script: string, tokens: string[], env: Record<string, string>, receiver?: CallbackReceiver, nodeArgs: string[] = []): Promise<Phase> {
  const server = await ChildServer.start({ script, env, port: await freePort(), nodeArgs });
  try {
    const gen = new LoadGenerator({
      ctx, baseUrl: server.url, tokens, batch: BATCH, concurrency: CONCURRENCY, staleShare: 0.01, durationMs: (WARMUP + SECONDS) * 1000, warmupMs: WARMUP * 1000, record: false,
    });
    let watch: ReturnType<typeof cpuWatch> | undefined;
    let callbacks0 = 0;
    let points0 = 0;
    const begin = setTimeout(() => {
      watch = cpuWatch(server.pid!);
      callbacks0 = receiver?.accepted ?? 0;
      points0 = gen.stats.points;
    }, WARMUP * 1000);
    const stats = await gen.run();
    clearTimeout(begin);
    const share = watch?.stop();
    const seconds = Math.max(0.001, (stats.endedAt - stats.measuredFrom) / 1000);
    const pps = stats.measuredPoints / seconds;
    const cpu = share ? floorCpu(pps, share) : undefined;
    return {
      pps: Math.round(pps), serverUs: cpu?.server_us_per_point ?? NaN, harnessUs: cpu?.harness_us_per_point ?? NaN,
      ...(receiver ? { callbacksPerPoint: Math.round(((receiver.accepted - callbacks0) / Math.max(1, stats.points - points0)) * 10_000) / 10_000 } : {}),
    };
  } finally {
    await server.stop();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const r3 = (x: number) => Math.round(x * 1000) / 1000;

async function main() {
  const fixture = await floorFixture(world);
  try {
    console.log(`bench/floor: ${USERS} users, ${world.geofences.length} geofences, batch ${BATCH}, ${CONCURRENCY} connections, ${ROUNDS} rounds of ${WARMUP} + ${SECONDS} s per server`);
    const bare: number[] = [];
    const full: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const base = await phase('load-tests/baseline-server.ts', world.users.map(() => 'baseline'), {});
      const fb = await phase('load-tests/floor-server.ts', fixture.tokens, fixture.bareEnv);
      const f = await phase('load-tests/floor-server.ts', fixture.tokens, fixture.callbackEnv, fixture.receiver,
        PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : []);
      bare.push(fb.pps / base.pps);
      full.push(f.pps / base.pps);
      console.log(
        `round ${round}: baseline ${base.pps} points/s (server ${base.serverUs} µs/pt, harness ${base.harnessUs}); ` +
        `floor without callbacks ${fb.pps} = ${r3(fb.pps / base.pps)} (server ${fb.serverUs}, harness ${fb.harnessUs}); ` +
        `floor with callbacks ${f.pps} = ${r3(f.pps / base.pps)} (server ${f.serverUs}, harness ${f.harnessUs}; ${f.callbacksPerPoint} callbacks a point)`,
      );
    }
    console.log(`median ratio to the baseline: floor without callbacks ${r3(median(bare))} (${bare.map(r3).join(', ')}), with callbacks ${r3(median(full))} (${full.map(r3).join(', ')})`);
  } finally {
    await fixture.close();
  }
}

await main();
process.exit(0);
