// A trigger's rule changed with trigger/update while users have machines on it, end to end over
// HTTP: one_time turned off lets the trigger fire again for the users it had already fired for,
// from their next entry (machines/README.md "Turning one_time off"); turned on, it counts from
// then on; and a leave trigger stored with a trigger_after (refused since) keeps firing at once.
import { describe, it } from 'vitest';
import { engineSuite } from './helpers/suite.js';
import { offset, updatePoint, wholeSecond } from './helpers/track.js';
import type { World } from './helpers/world.js';

const CENTRE = { latitude: 52.52, longitude: 13.405 };
const PLACE = { ...CENTRE, radius: 100 };

const suite = engineSuite();
const world = suite.world;
const start = () => wholeSecond(Date.now()) - 600_000;
const at = (east: number) => offset(CENTRE, east, 0);
const IN = at(0);
/** Beyond 100 m + the 20 m margin: out. */
const OUT = at(300);
/** Between 100 and 120 m: the hysteresis band. */
const BAND = at(110);

/** How many times the trigger fired for the user. */
const fired = async (w: World, userId: string, triggerId: string) =>
  (await w.firings(userId)).filter((f) => f.trigger.trigger_id === triggerId).length;

/** The user's machine on the trigger's place, as trigger/state shows it. */
async function machine(w: World, triggerId: string, userId: string): Promise<{ state: string; transitions?: Array<{ from: string; to: string; reason: string }> }> {
  const res = await w.api.get(`/1/trigger/state/${triggerId}`, { token: w.token, query: { user_id: userId } });
  if (res.status !== 200) throw new Error(`trigger/state: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.machines[0];
}

describe.concurrent('one_time turned off (1 → 0)', () => {
  it('an enter trigger fires again for the users it fired for, on their next entry, never for the visit under way', async ({ expect }) => {
    const w = await world();
    const t = await w.trigger({ type: 'message', text: 'once', one_time: 1 }, PLACE);
    const [left, stayed, hovering] = [await w.user(), await w.user(), await w.user()];
    const t0 = start();
    const s = (n: number) => t0 + n * 1000;
    await w.send(left, [updatePoint(IN, s(0)), updatePoint(OUT, s(10))]);
    await w.send(stayed, [updatePoint(IN, s(0)), updatePoint(IN, s(10))]);
    await w.send(hovering, [updatePoint(IN, s(0)), updatePoint(BAND, s(10))]);
    for (const u of [left, stayed, hovering]) expect(await fired(w, u.user_id, t.trigger_id)).toBe(1);
    // Spent for everyone, and a further visit changes nothing while one_time is on.
    expect((await machine(w, t.trigger_id, left.user_id)).state).toBe('firedOnce');

    const updated = await w.ok(`/1/trigger/update/${t.trigger_id}`, { one_time: 0 });
    expect(updated.one_time).toBe(0);
    // Released at once, without firing: the one who left is outside, the others are still on their visit.
    expect((await machine(w, t.trigger_id, left.user_id)).state).toBe('outside');
    const stayedMachine = await machine(w, t.trigger_id, stayed.user_id);
    expect(stayedMachine.state).toBe('inside');
    expect(stayedMachine.transitions!.at(-1)).toMatchObject({ from: 'firedOnce', to: 'inside', reason: 'one_time_off' });
    expect((await machine(w, t.trigger_id, hovering.user_id)).state).toBe('inside');
    for (const u of [left, stayed, hovering]) expect(await fired(w, u.user_id, t.trigger_id)).toBe(1);

    // The next entry fires; a point inside during the visit that already fired does not.
    await w.send(left, [updatePoint(IN, s(20))]);
    expect(await fired(w, left.user_id, t.trigger_id)).toBe(2);
    await w.send(stayed, [updatePoint(IN, s(20))]);
    await w.send(hovering, [updatePoint(IN, s(20))]);
    expect(await fired(w, stayed.user_id, t.trigger_id)).toBe(1);
    expect(await fired(w, hovering.user_id, t.trigger_id)).toBe(1);
    await w.send(stayed, [updatePoint(OUT, s(30)), updatePoint(IN, s(40))]);
    expect(await fired(w, stayed.user_id, t.trigger_id)).toBe(2);
    // And it recurs from then on.
    await w.send(left, [updatePoint(OUT, s(50)), updatePoint(IN, s(60)), updatePoint(OUT, s(70)), updatePoint(IN, s(80))]);
    expect(await fired(w, left.user_id, t.trigger_id)).toBe(4);
  });

  it('a leave trigger fires again on the next leave after an entry, never for a visit no point showed', async ({ expect }) => {
    const w = await world();
    const t = await w.trigger({ type: 'message', text: 'bye', trigger_on: 'leave', one_time: 1 }, PLACE);
    const [gone, back] = [await w.user(), await w.user()];
    const t0 = start();
    const s = (n: number) => t0 + n * 1000;
    await w.send(gone, [updatePoint(IN, s(0)), updatePoint(OUT, s(10))]);
    // Fired on leaving, then came back in while the trigger was spent.
    await w.send(back, [updatePoint(IN, s(0)), updatePoint(OUT, s(10)), updatePoint(IN, s(20))]);
    for (const u of [gone, back]) expect(await fired(w, u.user_id, t.trigger_id)).toBe(1);

    await w.ok(`/1/trigger/update/${t.trigger_id}`, { one_time: '0' });
    expect((await machine(w, t.trigger_id, gone.user_id)).state).toBe('outside');
    expect((await machine(w, t.trigger_id, back.user_id)).state).toBe('inside');

    // Outside: another out-point is no leave; an entry and a leave is.
    await w.send(gone, [updatePoint(OUT, s(30))]);
    expect(await fired(w, gone.user_id, t.trigger_id)).toBe(1);
    await w.send(gone, [updatePoint(IN, s(40)), updatePoint(OUT, s(50))]);
    expect(await fired(w, gone.user_id, t.trigger_id)).toBe(2);
    // Inside: leaving fires.
    await w.send(back, [updatePoint(OUT, s(30))]);
    expect(await fired(w, back.user_id, t.trigger_id)).toBe(2);
  });
});

describe.concurrent('one_time turned on (0 → 1)', () => {
  it('counts from then on: each user gets one more firing, whatever fired before', async ({ expect }) => {
    const w = await world();
    const t = await w.trigger({ type: 'message', text: 'hello', one_time: 0 }, PLACE);
    const user = await w.user();
    const t0 = start();
    const s = (n: number) => t0 + n * 1000;
    await w.send(user, [updatePoint(IN, s(0)), updatePoint(OUT, s(10)), updatePoint(IN, s(20)), updatePoint(OUT, s(30))]);
    expect(await fired(w, user.user_id, t.trigger_id)).toBe(2);

    await w.ok(`/1/trigger/update/${t.trigger_id}`, { one_time: true });
    await w.send(user, [updatePoint(IN, s(40))]);
    expect(await fired(w, user.user_id, t.trigger_id)).toBe(3);
    expect((await machine(w, t.trigger_id, user.user_id)).state).toBe('firedOnce');
    await w.send(user, [updatePoint(OUT, s(50)), updatePoint(IN, s(60))]);
    expect(await fired(w, user.user_id, t.trigger_id)).toBe(3);
  });
});

describe.concurrent('a leave trigger stored with trigger_after', () => {
  it('keeps firing at once on leaving, with triggered_delay "0", also after an update of another field', async ({ expect }) => {
    const w = await world();
    const hook = w.endpoint();
    const t = await w.trigger({ type: 'callback', url: hook.url, trigger_on: 'leave' }, PLACE);
    // As a trigger created before trigger_after was refused on leave triggers was stored.
    const stored = await suite.server.app.ctx.store.triggers.update(w.app.application_id, t.trigger_id, { set: { trigger_after: 300 } });
    expect(stored?.trigger_after).toBe(300);
    const updated = await w.ok(`/1/trigger/update/${t.trigger_id}`, { extra: { note: 'still a leave trigger' } });
    expect(updated).toMatchObject({ trigger_on: 'leave', trigger_after: 300 });

    const user = await w.user();
    const t0 = start();
    await w.send(user, [updatePoint(IN, t0), updatePoint(OUT, t0 + 10_000)]);
    const [ev] = await hook.waitFor(1);
    expect(ev).toMatchObject({ triggered_on: 'leave', triggered_delay: '0', date_ts: Math.floor((t0 + 10_000) / 1000) });
  });
});
