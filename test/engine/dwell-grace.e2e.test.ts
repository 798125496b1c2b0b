// Dwell by the clock with room for late data (machines/README.md "Order and time"), end to end on a
// real server: a phone that left a dwell place before the deadline, but whose points showing it
// reach the service only after the deadline (the phone was offline, or the service was down across
// the deadline), must not get a dwell. While running, the clock waits DWELL_TOLERANCE_MS past a
// deadline; a deadline that passed while the service was down waits DWELL_GRACE_MS from the first
// start after it, however often the service restarts. A user who stayed gets the dwell then, dated
// at the deadline. Each scenario ticks the engine itself right before the late points come, as the
// clock would: without that room the tick fired the false dwell.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { offset, updatePoint } from './helpers/track.js';
import { waitUntilTime } from './helpers/wait.js';
import { seconds, World, type Firing } from './helpers/world.js';

const CENTRE = { latitude: 35.6762, longitude: 139.6503 };
const PLACE = { ...CENTRE, radius: 100 };
const at = (east: number) => offset(CENTRE, east, 0);
/** Long enough for a restart and the phone's resend on a busy box; short enough to wait for. */
const GRACE_MS = 3_000;
const TOLERANCE_MS = 3_000;
const DWELL_S = 1;

let server: TestServer;
/** When the engine last started, at the latest. */
let startedBy = 0;
beforeAll(async () => {
  server = await startServer({ env: { DWELL_GRACE_MS: String(GRACE_MS), DWELL_TOLERANCE_MS: String(TOLERANCE_MS) }, engine: { tickIntervalMs: 20 } });
  startedBy = Date.now();
});
afterAll(async () => {
  await server?.close();
});

const engine = () => server.app.engine;

/** A dwell trigger and two users who entered it at t0: one will turn out to have left, one stayed. */
async function scene() {
  const w = await World.create(server.url);
  const t = await w.trigger({ type: 'message', text: 'you stayed', trigger_after: DWELL_S }, PLACE);
  const [left, stayed] = [await w.user(), await w.user()];
  const t0 = Date.now();
  await w.send(left, [updatePoint(at(0), t0)]);
  await w.send(stayed, [updatePoint(at(0), t0)]);
  const deadline = t0 + DWELL_S * 1000;
  const state = async (userId: string) => (await engine().inspect(userId, { triggerId: t.trigger_id }))?.pairs.map((p) => p.record.state) ?? [];
  return { w, t, left, stayed, t0, deadline, state };
}

/** The dwell of the user who stayed, fired by the clock, is dated at the deadline. */
function expectDwellAtDeadline(f: Firing, triggerId: string, deadline: number) {
  expect(f).toMatchObject({ triggered_on: 'enter', triggered_delay: String(DWELL_S), date_ts: seconds(deadline), trigger: { trigger_id: triggerId } });
  expect(f.event_id.endsWith(`:${deadline}`), f.event_id).toBe(true);
}

async function restart() {
  await server.restart();
  startedBy = Date.now();
}

describe('dwell clock and late points', { timeout: 60_000 }, () => {
  it('offline phone, no restart: its backlog uploaded after the deadline but within the tolerance cancels the dwell', async () => {
    // The service has been running for longer than the grace: it is not catching up after a start.
    await waitUntilTime(startedBy + GRACE_MS);
    const { w, t, left, stayed, t0, deadline, state } = await scene();
    // The phone goes offline inside, walks out before the deadline, and uploads once past it.
    await waitUntilTime(deadline + 200);
    await engine().tick(Date.now());
    expect(await w.firings(left.user_id)).toEqual([]);
    await w.send(left, [updatePoint(at(30), t0 + 200), updatePoint(at(200), t0 + 400), updatePoint(at(600), t0 + 700)]);
    expect(await state(left.user_id)).toEqual([]);

    const [f] = await w.waitFirings(stayed.user_id, 1);
    expectDwellAtDeadline(f!, t.trigger_id, deadline);
    expect(await w.firings(left.user_id)).toEqual([]);
    // The user who left is simply outside: coming back starts a new visit and a new dwell.
    const back = Date.now();
    await w.send(left, [updatePoint(at(0), back)]);
    const [again] = await w.waitFirings(left.user_id, 1);
    expectDwellAtDeadline(again!, t.trigger_id, back + DWELL_S * 1000);
  });

  it('restart: a deadline that passed while the service was down waits for the grace; the resent points that show the user left cancel it', async () => {
    const { w, t, left, stayed, t0, deadline, state } = await scene();
    // The service stops before the deadline and is down across it; the phones buffer their points.
    await engine().close();
    await waitUntilTime(deadline + 200);
    await restart();
    // The clock ticks after the start, before the phones resend: within the grace, nothing fires.
    await engine().tick(Date.now());
    expect(await w.firings(left.user_id)).toEqual([]);
    expect(await w.firings(stayed.user_id)).toEqual([]);

    // The buffered points: one phone walked out before the deadline, the other stayed inside.
    await w.send(left, [updatePoint(at(20), t0 + 300), updatePoint(at(500), t0 + 600)]);
    await w.send(stayed, [updatePoint(at(10), t0 + 500)]);
    expect(await state(left.user_id)).toEqual([]);

    // The user who stayed gets the dwell once the grace from the start has passed, dated at the deadline.
    const [f] = await w.waitFirings(stayed.user_id, 1);
    expectDwellAtDeadline(f!, t.trigger_id, deadline);
    expect(await state(stayed.user_id)).toEqual(['dwelling']);
    // That tick covered the other user's deadline too: no dwell for the user who left.
    expect(await w.firings(left.user_id)).toEqual([]);
  });

  it('restart with nothing resent: the overdue dwell fires after the grace, dated at the deadline', async () => {
    const { w, t, stayed, deadline, state } = await scene();
    await engine().close();
    await waitUntilTime(deadline + 200);
    await restart();
    const [f] = await w.waitFirings(stayed.user_id, 1);
    expectDwellAtDeadline(f!, t.trigger_id, deadline);
    expect(await state(stayed.user_id)).toEqual(['dwelling']);
  });

  it('restarts more often than the grace: the overdue dwell fires the grace after the first start after it, not after the last', async () => {
    const { w, t, stayed, deadline } = await scene();
    await engine().close();
    await waitUntilTime(deadline + 200);
    await restart();
    const firstStart = startedBy;
    // Up a second, then restarted: the latest start is well within the grace when the first one's has passed.
    await waitUntilTime(firstStart + 1_000);
    await engine().close();
    await restart();
    await waitUntilTime(firstStart + GRACE_MS + 100);
    await engine().tick(Date.now());
    const fired = await w.firings(stayed.user_id);
    expect(fired).toHaveLength(1);
    expectDwellAtDeadline(fired[0]!, t.trigger_id, deadline);
  });
});
