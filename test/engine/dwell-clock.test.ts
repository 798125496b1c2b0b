// The dwell clock with the service's defaults (a tolerance of a second while running, a grace of
// half a minute for deadlines that passed while it was down), on a real store and engine under a
// clock the test sets: nothing here waits for wall time. A quiet dwell fires a second after its
// deadline; one that passed while the service was down fires the grace after the first start after
// it, however often the service restarted since (issue 37, item 6).
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DWELL_GRACE_MS, DEFAULT_DWELL_TOLERANCE_MS } from '../../src/config.js';
import { EngineHost } from '../../src/engine/host.js';
import { destinationPoint } from '../../src/geo/distance.js';
import { enginePorts } from '../../src/plugins/engine.js';
import { buildServiceContext } from '../../src/plugins/service-context.js';
import type { ServiceContext } from '../../src/services/context.js';
import { openStore } from '../../src/store/store.js';
import { removeDir, seed, tempDataDir, testConfig, type Fixture } from '../delivery/helpers.js';

const G = DEFAULT_DWELL_GRACE_MS;
const T = DEFAULT_DWELL_TOLERANCE_MS;
const DWELL_S = 60;

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** A store, a context whose clock is `clock.now`, and engine hosts started and stopped at will. */
async function service() {
  const dir = await tempDataDir();
  cleanup.push(() => removeDir(dir));
  const clock = { now: Date.now() };
  const store = await openStore({ kind: 'embedded', dataDir: dir });
  const ctx: ServiceContext = buildServiceContext({ store, config: testConfig(dir, { dwellGraceMs: G, dwellToleranceMs: T }), now: () => clock.now }).ctx;
  cleanup.push(() => store.close());
  let host: EngineHost | undefined;
  const s = {
    clock,
    ctx,
    get host() {
      return host!;
    },
    /** The engine starts taking points at `at` (a start of the service). */
    async start(at: number) {
      clock.now = at;
      // No poll within a test: only the test's ticks (and the host's deadline timers, which read the same clock).
      host = new EngineHost(ctx, enginePorts(ctx.store, ctx.delivery), { shards: 1, inProcess: true, tickIntervalMs: 3_600_000 });
      await host.start();
    },
    async stop() {
      await host?.close();
      host = undefined;
    },
    /** A tick of the clock at `at`, as the host's poll makes. */
    async tick(at: number) {
      clock.now = at;
      await host!.tick(at);
    },
    async firings(f: Fixture) {
      return (await store.firings.history({ app_id: f.app._id, user_id: f.user._id }, 0, 100)).reverse();
    },
  };
  cleanup.push(() => s.stop());
  return s;
}

/** A location/update point `metres` north of the place's centre, taken at `at`. */
function pointAt(f: Fixture, at: number, metres: number) {
  const p = destinationPoint(f.place.latitude, f.place.longitude, 0, metres);
  return { date: new Date(at).toISOString(), location: { position: { latitude: p.lat, longitude: p.lon, horizontal_accuracy: 10 } } };
}

/** A dwell trigger of `dwellS` in the store, the engine started at the service's clock, and the user
 *  entering its place `after` ms later: the start, the entry and the dwell's deadline. */
async function entered(s: Awaited<ReturnType<typeof service>>, after = G + 10_000, dwellS = DWELL_S) {
  const t0 = s.clock.now;
  // The trigger is in the store before the engine loads it.
  const f = await seed(s.ctx, { type: 'message', text: 'stayed', trigger_after: dwellS });
  await s.start(t0);
  const at = t0 + after;
  s.clock.now = at;
  await s.host.ingest(f.app, f.user, { value: [pointAt(f, at, 10)] }, at);
  return { f, t0, deadline: at + dwellS * 1000 };
}

describe('the dwell clock with its defaults', () => {
  it('fires a quiet dwell a second after its deadline, dated at the deadline', async () => {
    const s = await service();
    // Well after the start: the service is running, not catching up.
    const { f, deadline } = await entered(s);

    await s.tick(deadline + T - 1);
    expect(await s.firings(f)).toEqual([]);
    await s.tick(deadline + T);
    expect((await s.firings(f)).map((h) => h.date)).toEqual([deadline]);
  });

  it('a late point within the tolerance, showing the user left before the deadline, cancels the dwell', async () => {
    const s = await service();
    const { f, deadline } = await entered(s);
    // In flight at the deadline: sent before it, received just after.
    s.clock.now = deadline + T / 2;
    await s.host.ingest(f.app, f.user, { value: [pointAt(f, deadline - 1_000, 2_000)] }, s.clock.now);
    await s.tick(deadline + 10 * T);
    expect(await s.firings(f)).toEqual([]);
  });

  it('a deadline that passed while the service was down waits for the grace from the start after it', async () => {
    const s = await service();
    const { f, deadline } = await entered(s);
    s.clock.now = deadline - 5_000;
    await s.stop();

    const restart = deadline + 20_000;
    await s.start(restart);
    await s.tick(restart + G - 1);
    expect(await s.firings(f)).toEqual([]);
    await s.tick(restart + G);
    expect((await s.firings(f)).map((h) => h.date)).toEqual([deadline]);
  });

  it('counts that grace once: a service that restarts more often than the grace still fires the dwell', async () => {
    const s = await service();
    const { f, deadline } = await entered(s);
    s.clock.now = deadline - 5_000;
    await s.stop();

    // Up for a third of the grace, down for a third, again and again.
    const first = deadline + 1_000;
    for (let start = first; start + G / 3 < first + G; start += (2 * G) / 3) {
      await s.start(start);
      await s.tick(start + G / 3);
      expect(await s.firings(f), `start at ${start - first} ms`).toEqual([]);
      await s.stop();
    }
    // The next start is past the grace of the first start after the deadline: it fires at once.
    const later = first + G + 1_000;
    await s.start(later);
    await s.tick(later);
    expect((await s.firings(f)).map((h) => h.date)).toEqual([deadline]);
  });

  it('for the grace after a start, a new deadline waits with those that passed while the service was down', async () => {
    const s = await service();
    const { f, t0, deadline } = await entered(s, 1_000, 5);
    // Within the grace of the start, which a phone's backlog from before it could still reach.
    await s.tick(deadline + T);
    expect(await s.firings(f)).toEqual([]);
    await s.tick(t0 + G);
    expect((await s.firings(f)).map((h) => h.date)).toEqual([deadline]);
  });
});
