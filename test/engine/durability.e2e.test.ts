// Durability of the engine, end to end: a server restarted in the middle of a walk (same DATA_DIR,
// same port) and worker threads killed in the middle of a walk must resume every pair where it
// was: a user inside stays inside, a one_time trigger that fired never fires again, a pending
// dwell deadline still fires (also one that passed while the server was down), nothing fires
// twice and nothing is lost. The tests run one after another: a restart stops the whole server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, type TestUser } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { CallbackReceiver } from './helpers/receiver.js';
import { offset, Track, updatePoint, wholeSecond } from './helpers/track.js';
import { waitFor, waitUntilTime } from './helpers/wait.js';
import { seconds, summary, World } from './helpers/world.js';

const CENTRE = { latitude: 35.6762, longitude: 139.6503 };
const PLACE = { ...CENTRE, radius: 100 };

let server: TestServer;
let receiver: CallbackReceiver;

beforeAll(async () => {
  server = await startServer({
    // A failed callback waits 1-2 s for its next round: long enough to restart in between.
    delivery: { pollMs: 25, round: { retries: 0 }, backoff: { baseMs: 2_000, capMs: 2_000 }, timeoutMs: 2_000 },
    engine: { shard: { testHooks: true } },
  });
  receiver = await new CallbackReceiver().start();
});
afterAll(async () => {
  await receiver?.stop();
  await server?.close();
});

const world = () => World.create(server.url, receiver);
const at = (east: number, north = 0) => offset(CENTRE, east, north);
const engine = () => server.app.engine;

// Restarts and thread rebuilds are slow on a busy 2-core box: each describe gives its tests room.
describe('restart', { timeout: 60_000 }, () => {
  it('in the middle of a walk: the user stays inside, one_time stays spent, a pending callback is still delivered, nothing twice', async () => {
    const w = await world();
    const hook = w.endpoint().plan([503]);
    const user = await w.user();
    const enter = await w.trigger({ type: 'callback', url: hook.url }, PLACE);
    const leave = await w.trigger({ place_id: enter.place_id, type: 'callback', url: hook.url, trigger_on: 'leave' });
    const once = await w.trigger({ place_id: enter.place_id, type: 'message', text: 'first visit only', one_time: 1 });

    const track = new Track(CENTRE, wholeSecond(Date.now()) - 600_000, { seed: 3 }).at(-300, 0).walkTo(-20, 0, { speed: 2, every: 10 });
    await w.send(user, track.take());
    expect(summary(await w.firings(user.user_id)).map((s) => s[1]).sort()).toEqual([enter.trigger_id, once.trigger_id].sort());
    // The enter callback failed once and waits for its next round while the server restarts.
    await waitFor('the first callback attempt', () => hook.requests.length >= 1);
    await server.restart();

    track.hover({ distance: 40, spread: 30, count: 20, every: 10 });
    await w.send(user, track.take());
    track.walkTo(400, 0, { speed: 2, every: 10 });
    await w.send(user, track.take());
    // No second enter for the user who stayed inside across the restart; the leave came once.
    const firings = await w.firings(user.user_id);
    expect(firings.map((f) => f.trigger.trigger_id).sort(), 'firings after the first restart').toEqual([enter.trigger_id, once.trigger_id, leave.trigger_id].sort());
    expect(firings.at(-1)).toMatchObject({ triggered_on: 'leave', trigger: { trigger_id: leave.trigger_id } });

    // A second visit after another restart: the recurring trigger fires again, one_time does not.
    await server.restart();
    track.walkTo(0, 0, { speed: 2, every: 10 });
    await w.send(user, track.take());
    const after = await w.firings(user.user_id);
    expect(after.filter((f) => f.trigger.trigger_id === enter.trigger_id)).toHaveLength(2);
    expect(after.filter((f) => f.trigger.trigger_id === once.trigger_id)).toHaveLength(1);

    // Every callback firing delivered (the 503 was retried). At-least-once: a send cut short by a
    // restart may come again, but only with its own webhook-id and the very same signed body.
    const callbackIds = after.filter((f) => f.type === 'callback').map((f) => f.event_id).sort();
    expect(callbackIds).toHaveLength(3);
    const deliveredIds = () => [...new Set(hook.delivered().map((r) => r.webhookId))].sort();
    await waitFor('every callback delivered', () => deliveredIds().length >= callbackIds.length);
    expect(deliveredIds(), 'delivered webhook ids').toEqual(callbackIds);
    expect(new Set(hook.requests.map((r) => r.webhookId)).size, 'distinct webhook ids received').toBe(3);
    for (const id of callbackIds) expect(new Set(hook.requests.filter((r) => r.webhookId === id).map((r) => r.body)).size).toBe(1);
    expect(hook.requests.filter((r) => r.verifyError !== undefined)).toEqual([]);
  });

  it('a pending dwell deadline still fires after a restart, at entry + N', async () => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'you stayed', trigger_after: 3 }, PLACE);
    const t0 = wholeSecond(Date.now());
    await w.send(user, [updatePoint(at(0), t0)]);
    expect(await w.firings(user.user_id)).toEqual([]);
    await server.restart();
    const [f] = await w.waitFirings(user.user_id, 1);
    expect(f).toMatchObject({ triggered_on: 'enter', triggered_delay: '3', date_ts: seconds(t0) + 3, trigger: { trigger_id: t.trigger_id } });
    // Spent for this visit: dwelling, no deadline left, and a further restart fires nothing more.
    await server.restart();
    const view = await engine().inspect(user.user_id, { triggerId: t.trigger_id });
    expect(view?.pairs.map((p) => [p.record.state, p.record.deadline])).toEqual([['dwelling', undefined]]);
    await w.send(user, [updatePoint(at(5), t0 + 10_000)]);
    expect(await w.firings(user.user_id)).toHaveLength(1);
  });

  it('a dwell deadline that passed while the server was down fires on start, dated at the deadline, located at the last point', async () => {
    const w = await world();
    const hook = w.endpoint();
    const user = await w.user();
    await w.trigger({ type: 'callback', url: hook.url, trigger_after: 2 }, PLACE);
    const t0 = wholeSecond(Date.now());
    await w.send(user, [updatePoint(at(15), t0)]);
    // The engine stops (as in a shutdown) before the deadline; the deadline passes while it is down.
    await engine().close();
    expect(await w.firings(user.user_id)).toEqual([]);
    // A phone posting now is told to retry (503), not that the server broke (500).
    const refused = await w.api.post('/1/location/update', { token: user.access_token, json: [updatePoint(at(15), t0 + 1_000)] });
    expect(refused.status).toBe(503);
    expectErrorShape(refused.body, 503, 'service_unavailable');
    await waitUntilTime(t0 + 2_500);
    await server.restart();
    const [ev] = await hook.waitFor(1);
    expect(ev).toMatchObject({ triggered_delay: '2', date_ts: seconds(t0) + 2, location: { date_ts: seconds(t0), location: { position: at(15) } } });
    expect(await w.firings(user.user_id)).toHaveLength(1);
  });

  it('one_time turned off after a restart releases each spent pair by where the user was last seen', async () => {
    const { w, t, left, stayed, t0, state } = await spentOnce();
    await server.restart();

    await w.ok(`/1/trigger/update/${t.trigger_id}`, { one_time: 0 });
    expect(await state(left.user_id)).toBe('outside');
    expect(await state(stayed.user_id)).toBe('inside');
    await w.send(left, [updatePoint(at(0), t0 + 20_000)]);
    await w.send(stayed, [updatePoint(at(0), t0 + 20_000)]);
    expect((await w.firings(left.user_id)).length).toBe(2);
    expect((await w.firings(stayed.user_id)).length).toBe(1);
  });

  it('a trigger made recurring whose release was never stored is released at start, and the release is stored', async () => {
    const { w, t, left, stayed, t0, state } = await spentOnce();
    expect(await state(left.user_id)).toBe('firedOnce');
    // The trigger became recurring without the engine hearing of it (the process stopped before
    // the release was stored, or the shard was being rebuilt): the stored records are still spent.
    await server.app.ctx.store.triggers.update(w.app.application_id, t.trigger_id, { set: { one_time: 0 } });
    await server.restart();

    // trigger/state reads the stored records: the release made at start is there.
    expect(await state(left.user_id)).toBe('outside');
    expect(await state(stayed.user_id)).toBe('inside');
    await server.restart();
    expect(await state(stayed.user_id)).toBe('inside');
    await w.send(left, [updatePoint(at(0), t0 + 20_000)]);
    await w.send(stayed, [updatePoint(at(0), t0 + 20_000)]);
    expect((await w.firings(left.user_id)).length).toBe(2);
    expect((await w.firings(stayed.user_id)).length).toBe(1);
  });
});

/**
 * A one_time trigger that fired for two users: one left the place since, one is still inside.
 * `state` is a user's machine state as trigger/state shows it (from the stored records).
 */
async function spentOnce() {
  const w = await world();
  const t = await w.trigger({ type: 'message', text: 'once', one_time: 1 }, PLACE);
  const [left, stayed] = [await w.user(), await w.user()];
  const t0 = wholeSecond(Date.now()) - 600_000;
  await w.send(left, [updatePoint(at(0), t0), updatePoint(at(300), t0 + 10_000)]);
  await w.send(stayed, [updatePoint(at(0), t0), updatePoint(at(10), t0 + 10_000)]);
  const state = async (userId: string): Promise<string> =>
    (await w.api.get(`/1/trigger/state/${t.trigger_id}`, { token: w.token, query: { user_id: userId } })).body.machines[0].state;
  return { w, t, left, stayed, t0, state };
}

describe('device time across a restart', { timeout: 60_000 }, () => {
  it('a point older than the last applied one still moves nothing after a restart', async () => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'hi' }, PLACE);
    const t0 = wholeSecond(Date.now()) - 600_000;
    await w.send(user, [updatePoint(at(-500), t0), updatePoint(at(500), t0 + 30_000)]);
    await server.restart();
    await w.send(user, [updatePoint(at(0), t0 + 20_000)]);
    expect(await w.firings(user.user_id)).toEqual([]);
    await w.send(user, [updatePoint(at(0), t0 + 40_000)]);
    expect(summary(await w.firings(user.user_id))).toEqual([['enter', t.trigger_id, t.place_id, seconds(t0 + 40_000)]]);
  });
});

describe('restart while phones are posting', { timeout: 60_000 }, () => {
  it('every update is either accepted or refused with a retryable 503; after retries every firing and point is there exactly once', async () => {
    const w = await world();
    await w.storeHistory();
    const places = [0, 600, 1200].map((east) => ({ ...at(east), radius: 100 }));
    const enters = [];
    for (const p of places) enters.push((await w.trigger({ type: 'message', text: 'hi' }, p)).trigger_id);
    const users = await Promise.all([0, 1, 2, 3].map(() => w.user()));
    const statuses: Array<number | string> = [];
    /** A phone: posts its chunk and, like the SDK, retries until it is accepted. */
    const post = async (u: TestUser, points: ReturnType<Track['take']>) => {
      for (let attempt = 0; ; attempt++) {
        const res = await w.api.post('/1/location/update', { token: u.access_token, json: points }).catch((err: Error) => ({ status: err.message }));
        if (res.status === 200) return;
        statuses.push(res.status);
        if (attempt > 200) throw new Error(`location/update never accepted: ${res.status}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const tracks = users.map((_, i) => new Track(CENTRE, wholeSecond(Date.now()) - 600_000 + i * 1000, { seed: 10 + i }).at(-300, 0));
    const walks = users.map(async (u, i) => {
      for (let east = 0; east <= 1500; east += 100) {
        tracks[i]!.walkTo(east, 0, { speed: 5, every: 4, jitter: 5 });
        await post(u, tracks[i]!.take());
      }
    });
    await new Promise((r) => setTimeout(r, 100)); // let the phones get going
    await Promise.all([...walks, server.restart()]);

    // Refusals during the restart are for retrying (or the connection was refused): never a 500.
    expect(statuses.filter((s) => typeof s === 'number' && s !== 503)).toEqual([]);
    for (const [i, u] of users.entries()) {
      expect(summary(await w.firings(u.user_id)).map((s) => s[1])).toEqual(enters);
      const hist = await w.api.get('/1/location/history', { token: u.access_token, query: { count: 1000 } });
      expect(hist.body.points.map((p: { date_ts: number }) => p.date_ts)).toEqual(tracks[i]!.positions().map((p) => seconds(p.at)));
    }
  });
});

describe('rate limits', { timeout: 60_000 }, () => {
  it("a layer's trigger_rate_limit holds across a restart, also for a phone posting an hour late", async () => {
    const w = await world();
    const layer = await w.layer({ trigger_rate_limit: 600 });
    const p1 = await w.place({ ...at(0), radius: 100 }, { layer_id: layer });
    await w.place({ ...at(1000), radius: 100 }, { layer_id: layer });
    const t = await w.trigger({ layer_id: layer, type: 'message', text: 'deal' });
    const users = [await w.user(), await w.user()];
    for (const u of users) await w.subscribe(layer, u.user_id);
    // One phone in real time, one that was offline and syncs points from an hour ago.
    const starts = [wholeSecond(Date.now()) - 60_000, wholeSecond(Date.now()) - 3_600_000];
    for (const [i, u] of users.entries()) await w.send(u, [updatePoint(at(0), starts[i]!), updatePoint(at(500, 500), starts[i]! + 10_000)]);
    await server.restart();
    // 40 s after the first firing, well within the 600 s limit: suppressed. 700 s after: fires.
    for (const [i, u] of users.entries()) {
      await w.send(u, [updatePoint(at(1000), starts[i]! + 40_000), updatePoint(at(500, 500), starts[i]! + 50_000), updatePoint(at(0), starts[i]! + 700_000)]);
      expect(summary(await w.firings(u.user_id))).toEqual([
        ['enter', t.trigger_id, p1, seconds(starts[i]!)],
        ['enter', t.trigger_id, p1, seconds(starts[i]! + 700_000)],
      ]);
    }
  });
});

describe('killed worker threads', { timeout: 60_000 }, () => {
  it('a thread killed in the middle of a walk is rebuilt: every firing exactly once, none lost', async () => {
    const w = await world();
    const places = [0, 1000, 2000].map((east) => ({ ...at(east), radius: 100 }));
    const created = [];
    for (const p of places) created.push(await w.trigger({ type: 'message', text: 'hello' }, p));
    const enters = created.map((t) => t.trigger_id);
    const leaveB = (await w.trigger({ place_id: created[1]!.place_id, type: 'message', text: 'bye', trigger_on: 'leave' })).trigger_id;

    // Two users on each shard.
    const byShard: TestUser[][] = [[], []];
    for (let i = 0; i < 40 && (byShard[0]!.length < 2 || byShard[1]!.length < 2); i++) {
      const u = await w.user();
      const list = byShard[engine().engine.shardOf(u.user_id)]!;
      if (list.length < 2) list.push(u);
    }
    const users = byShard.flat();
    expect(users).toHaveLength(4);
    const tracks = users.map((_, i) => new Track(CENTRE, wholeSecond(Date.now()) - 600_000 + i * 1000, { seed: i }).at(-300, 0));
    const leg = async (toEast: number, during?: () => Promise<unknown>) => {
      for (const t of tracks) t.walkTo(toEast, 0, { speed: 4, every: 10, jitter: 5 });
      await Promise.all([...users.map((u, i) => w.send(u, tracks[i]!.take())), during?.()]);
    };

    await leg(500);
    // Both threads die while the second leg's batches are on their way to them.
    await leg(1500, () => Promise.all([engine().engine.terminateShardThread(0), engine().engine.terminateShardThread(1)]));
    // A thread that exits between tasks (as on an out-of-memory crash).
    await engine().engine.crashShard(0);
    await leg(2400);

    for (const u of users) {
      expect(summary(await w.firings(u.user_id)).map((s) => [s[0], s[1]])).toEqual([
        ['enter', enters[0]], ['enter', enters[1]], ['leave', leaveB], ['enter', enters[2]],
      ]);
      expect((await engine().inspect(u.user_id))?.pairs).toEqual([]);
    }
  });

  it("a silent phone's pending dwell fires once after its thread was killed", async () => {
    const w = await world();
    const user = await w.user();
    const t = await w.trigger({ type: 'message', text: 'stayed', trigger_after: 2 }, PLACE);
    const t0 = wholeSecond(Date.now());
    await w.send(user, [updatePoint(at(0), t0)]);
    await engine().engine.terminateShardThread(engine().engine.shardOf(user.user_id));
    const [f] = await w.waitFirings(user.user_id, 1);
    expect(f).toMatchObject({ triggered_delay: '2', date_ts: seconds(t0) + 2, trigger: { trigger_id: t.trigger_id } });
    // Spent: dwelling without a deadline, so nothing is left to fire a second time.
    const view = await engine().inspect(user.user_id, { triggerId: t.trigger_id });
    expect(view?.pairs.map((p) => [p.record.state, p.record.deadline])).toEqual([['dwelling', undefined]]);
    expect(await w.firings(user.user_id)).toHaveLength(1);
  });
});
