// Table-driven transitions: one row per rule of machines/README.md, run through `step`.
import { describe, expect, it } from 'vitest';
import {
  step,
  type Effect,
  type FenceRule,
  type GateInputs,
  type PairEvent,
  type PairRecord,
  type StepEvent,
  type Zone,
} from '../../machines/index.js';

const S = 1000;
const rule = (over: Partial<FenceRule> = {}): FenceRule => ({
  triggerId: 't1',
  placeId: 'p1',
  triggerOn: 'enter',
  triggerAfterS: 0,
  oneTime: false,
  rateLimitS: 0,
  ...over,
});

type Ev = [kind: Zone | 'tick', at: number, gate?: Partial<GateInputs>];
interface Row {
  name: string;
  rule: FenceRule;
  events: Ev[];
  /** State after each event ('outside' for no record). */
  states: string[];
  /** Effects after each event, abbreviated as `FIRE:enter@t+delay`, `SUPPRESSED:reason`, `VISIT`. */
  effects: string[][];
}

function short(e: Effect): string {
  if (e.type === 'VISIT') return 'VISIT';
  if (e.type === 'FIRE') return `FIRE:${e.triggeredOn}@${e.at / S}+${e.delaySeconds}`;
  return `SUPPRESSED:${e.reason}`;
}

function play(r: FenceRule, events: Ev[]) {
  let rec: PairRecord | undefined;
  const states: string[] = [];
  const effects: string[][] = [];
  const records: (PairRecord | undefined)[] = [];
  for (const [kind, at, g] of events) {
    const ev: StepEvent = kind === 'tick' ? { type: 'TICK', at } : { type: 'POINT', at, zone: kind };
    const res = step(rec, r, ev, () => ({ window: null, lastFiredAt: null, ...g }));
    rec = res.record;
    records.push(rec);
    states.push(rec?.state ?? 'outside');
    effects.push(res.effects.map(short));
  }
  return { states, effects, records };
}

const rows: Row[] = [
  {
    name: 'enter fires on entering',
    rule: rule(),
    events: [['out', 0], ['band', 1 * S], ['in', 2 * S], ['in', 3 * S]],
    states: ['outside', 'outside', 'inside', 'inside'],
    effects: [[], [], ['VISIT', 'FIRE:enter@2+0'], []],
  },
  {
    name: 'leave fires on leaving, not in the band',
    rule: rule({ triggerOn: 'leave' }),
    events: [['in', 0], ['band', 1 * S], ['out', 2 * S], ['out', 3 * S]],
    states: ['inside', 'inside', 'outside', 'outside'],
    effects: [['VISIT'], [], ['FIRE:leave@2+0'], []],
  },
  {
    name: 'dwell fires on an in-point at the deadline, once per visit',
    rule: rule({ triggerAfterS: 60 }),
    events: [['in', 0], ['in', 30 * S], ['in', 60 * S], ['in', 90 * S], ['out', 100 * S], ['in', 110 * S]],
    states: ['inside', 'inside', 'dwelling', 'dwelling', 'outside', 'inside'],
    effects: [['VISIT'], [], ['FIRE:enter@60+60'], [], [], ['VISIT']],
  },
  {
    name: 'dwell fires on a tick alone (silent phone)',
    rule: rule({ triggerAfterS: 60 }),
    events: [['in', 0], ['tick', 59 * S], ['tick', 60 * S], ['tick', 61 * S]],
    states: ['inside', 'inside', 'dwelling', 'dwelling'],
    effects: [['VISIT'], [], ['FIRE:enter@60+60'], []],
  },
  {
    name: 'leaving before the dwell deadline drops it',
    rule: rule({ triggerAfterS: 60 }),
    events: [['in', 0], ['out', 30 * S], ['tick', 60 * S]],
    states: ['inside', 'outside', 'outside'],
    effects: [['VISIT'], [], []],
  },
  {
    name: 'band points never move a pair either way',
    rule: rule({ triggerOn: 'leave' }),
    events: [['band', 0], ['in', 1 * S], ['band', 2 * S], ['band', 3 * S], ['in', 4 * S], ['band', 5 * S]],
    states: ['outside', 'inside', 'inside', 'inside', 'inside', 'inside'],
    effects: [[], ['VISIT'], [], [], [], []],
  },
  {
    name: 'unusable points never move a pair',
    rule: rule({ triggerOn: 'leave' }),
    events: [['unusable', 0], ['in', 1 * S], ['unusable', 2 * S], ['out', 3 * S]],
    states: ['outside', 'inside', 'inside', 'outside'],
    effects: [[], ['VISIT'], [], ['FIRE:leave@3+0']],
  },
  {
    name: 'one_time enter goes to firedOnce for good',
    rule: rule({ oneTime: true }),
    events: [['in', 0], ['out', 1 * S], ['in', 2 * S], ['tick', 3 * S]],
    states: ['firedOnce', 'firedOnce', 'firedOnce', 'firedOnce'],
    effects: [['VISIT', 'FIRE:enter@0+0'], [], [], []],
  },
  {
    name: 'one_time leave goes to firedOnce when it fires',
    rule: rule({ triggerOn: 'leave', oneTime: true }),
    events: [['in', 0], ['out', 1 * S], ['in', 2 * S], ['out', 3 * S]],
    states: ['inside', 'firedOnce', 'firedOnce', 'firedOnce'],
    effects: [['VISIT'], ['FIRE:leave@1+0'], [], []],
  },
  {
    name: 'one_time dwell by tick',
    rule: rule({ oneTime: true, triggerAfterS: 10 }),
    events: [['in', 0], ['tick', 10 * S], ['out', 20 * S]],
    states: ['inside', 'firedOnce', 'firedOnce'],
    effects: [['VISIT'], ['FIRE:enter@10+10'], []],
  },
  {
    name: 'date window gates the firing; the state still changes',
    rule: rule(),
    events: [['in', 0, { window: 'date_window' }], ['out', 1 * S], ['in', 2 * S]],
    states: ['inside', 'outside', 'inside'],
    effects: [['VISIT', 'SUPPRESSED:date_window'], [], ['VISIT', 'FIRE:enter@2+0']],
  },
  {
    name: 'time window gates a leave',
    rule: rule({ triggerOn: 'leave' }),
    events: [['in', 0], ['out', 1 * S, { window: 'time_window' }]],
    states: ['inside', 'outside'],
    effects: [['VISIT'], ['SUPPRESSED:time_window']],
  },
  {
    name: 'a gated one_time firing does not consume the trigger',
    rule: rule({ oneTime: true }),
    events: [['in', 0, { window: 'time_window' }], ['out', 1 * S], ['in', 2 * S], ['out', 3 * S], ['in', 4 * S]],
    states: ['inside', 'outside', 'firedOnce', 'firedOnce', 'firedOnce'],
    effects: [['VISIT', 'SUPPRESSED:time_window'], [], ['VISIT', 'FIRE:enter@2+0'], [], []],
  },
  {
    name: 'a gated dwell is spent for that visit',
    rule: rule({ triggerAfterS: 10 }),
    events: [['in', 0], ['tick', 10 * S, { window: 'date_window' }], ['in', 20 * S], ['tick', 30 * S]],
    states: ['inside', 'dwelling', 'dwelling', 'dwelling'],
    effects: [['VISIT'], ['SUPPRESSED:date_window'], [], []],
  },
  {
    name: 'rate limit: fired 59 s ago with a 60 s limit is gated, 60 s ago is not',
    rule: rule({ rateLimitS: 60 }),
    events: [['in', 100 * S, { lastFiredAt: 41 * S }], ['out', 101 * S], ['in', 102 * S, { lastFiredAt: 42 * S }]],
    states: ['inside', 'outside', 'inside'],
    effects: [['VISIT', 'SUPPRESSED:rate_limit'], [], ['VISIT', 'FIRE:enter@102+0']],
  },
  {
    name: 'rate limit 0 means no limit',
    rule: rule({ rateLimitS: 0 }),
    events: [['in', 100 * S, { lastFiredAt: 100 * S }]],
    states: ['inside'],
    effects: [['VISIT', 'FIRE:enter@100+0']],
  },
  {
    name: 'windows are checked before the rate limit',
    rule: rule({ rateLimitS: 60 }),
    events: [['in', 100 * S, { window: 'date_window', lastFiredAt: 99 * S }]],
    states: ['inside'],
    effects: [['VISIT', 'SUPPRESSED:date_window']],
  },
  {
    name: 'a dwell trigger that is on leave ignores trigger_after',
    rule: rule({ triggerOn: 'leave', triggerAfterS: 10 }),
    events: [['in', 0], ['tick', 10 * S], ['in', 20 * S], ['out', 30 * S]],
    states: ['inside', 'inside', 'inside', 'outside'],
    effects: [['VISIT'], [], [], ['FIRE:leave@30+0']],
  },
];

describe('trigger rules (machines/README.md), one row per rule', () => {
  for (const row of rows) {
    it(row.name, () => {
      const got = play(row.rule, row.events);
      expect(got.states).toEqual(row.states);
      expect(got.effects).toEqual(row.effects);
    });
  }
});

describe('records', () => {
  it('an event that changes nothing returns the very same record object', () => {
    const r = rule({ triggerAfterS: 60 });
    const first = step(undefined, r, { type: 'POINT', at: 0, zone: 'in' });
    const again = step(first.record, r, { type: 'POINT', at: 5 * S, zone: 'in' });
    expect(again.record).toBe(first.record);
    expect(again.effects).toHaveLength(0);
    expect(again.transition).toBeUndefined();
  });

  it('carries enteredAt, deadline, since and lastPointAt', () => {
    const { records } = play(rule({ triggerAfterS: 60 }), [['in', 5 * S], ['tick', 65 * S]]);
    expect(records[0]).toMatchObject({ state: 'inside', since: 5 * S, enteredAt: 5 * S, deadline: 65 * S, lastPointAt: 5 * S });
    expect(records[1]).toMatchObject({ state: 'dwelling', since: 65 * S, enteredAt: 5 * S, lastPointAt: 5 * S });
    expect(records[1]!.deadline).toBeUndefined();
    expect(records[1]!.history).toEqual([
      { from: 'outside', to: 'inside', at: 5 * S, reason: 'enter' },
      { from: 'inside', to: 'dwelling', at: 65 * S, reason: 'dwell_tick', outcome: 'fired' },
    ]);
  });

  it('keeps at most 5 transitions, the most recent ones', () => {
    const older = Array.from({ length: 5 }, (_, i) => ({ from: 'outside' as const, to: 'inside' as const, at: i, reason: 'enter' as const }));
    const long: PairRecord = { state: 'inside', since: 4, enteredAt: 4, history: older };
    const moved = step(long, rule({ triggerOn: 'leave', oneTime: true }), { type: 'POINT', at: 100, zone: 'out' });
    expect(moved.record!.history).toHaveLength(5);
    expect(moved.record!.history[0]!.at).toBe(1);
    expect(moved.record!.history.at(-1)).toMatchObject({ from: 'inside', to: 'firedOnce', at: 100, outcome: 'fired' });
    expect(long.history).toHaveLength(5); // records are never mutated
  });

  it('reports the transition into outside even though the record goes away', () => {
    const r = rule({ triggerOn: 'leave' });
    const a = step(undefined, r, { type: 'POINT', at: 0, zone: 'in' });
    const b = step(a.record, r, { type: 'POINT', at: S, zone: 'out' });
    expect(b.record).toBeUndefined();
    expect(b.transition).toEqual({ from: 'inside', to: 'outside', at: S, reason: 'leave', outcome: 'fired' });
  });

  it('does not look up gate inputs for events that change nothing', () => {
    let calls = 0;
    const gate = () => {
      calls++;
      return { window: null, lastFiredAt: null };
    };
    const r = rule();
    const a = step(undefined, r, { type: 'POINT', at: 0, zone: 'band' }, gate);
    step(a.record, r, { type: 'POINT', at: 1, zone: 'out' }, gate);
    expect(calls).toBe(0);
    step(undefined, r, { type: 'POINT', at: 2, zone: 'in' }, gate);
    expect(calls).toBe(1);
  });

  it('FIRE carries everything the host needs to build the event id', () => {
    const res = step(undefined, rule({ triggerId: 'T', placeId: 'P' }), { type: 'POINT', at: 1234, zone: 'in' });
    expect(res.effects).toEqual([
      { type: 'VISIT', triggerId: 'T', placeId: 'P', at: 1234 },
      { type: 'FIRE', triggerId: 'T', placeId: 'P', triggeredOn: 'enter', delaySeconds: 0, at: 1234 },
    ]);
  });
});

describe('host events: RELEASE, LEAVE_LAYER, FORGET (machines/README.md "Events")', () => {
  const spent = (over: Partial<PairRecord> = {}): PairRecord => ({
    state: 'firedOnce', since: 10 * S, enteredAt: 0, lastPointAt: 10 * S,
    history: [{ from: 'outside', to: 'firedOnce', at: 10 * S, reason: 'enter', outcome: 'fired' }],
    ...over,
  });
  const release = (zone: Zone | null, onLayer = true, at = 20 * S): PairEvent => ({ type: 'RELEASE', at, zone, onLayer });
  const stateAfter = (r: FenceRule, rec: PairRecord | undefined, ev: PairEvent) => step(rec, r, ev).record?.state ?? 'outside';

  it('RELEASE puts a spent pair where the last point shows the user; band, unusable or none: inside for enter, outside for leave', () => {
    const zones: (Zone | null)[] = ['in', 'out', 'band', 'unusable', null];
    const enter = rule();
    const leave = rule({ triggerOn: 'leave' });
    expect(zones.map((z) => stateAfter(enter, spent(), release(z)))).toEqual(['inside', 'outside', 'inside', 'inside', 'inside']);
    expect(zones.map((z) => stateAfter(leave, spent(), release(z)))).toEqual(['inside', 'outside', 'outside', 'outside', 'outside']);
  });

  it('RELEASE of a user no longer on the layer is outside whatever their point', () => {
    for (const triggerOn of ['enter', 'leave'] as const) {
      expect(stateAfter(rule({ triggerOn }), spent(), release('in', false))).toBe('outside');
    }
  });

  it('RELEASE inside starts a visit at the event, with no dwell deadline and no firing', () => {
    const res = step(spent(), rule({ triggerAfterS: 60 }), release('in'));
    expect(res.effects).toEqual([]);
    const t = { from: 'firedOnce', to: 'inside', at: 20 * S, reason: 'one_time_off' };
    expect(res.record).toEqual({ state: 'inside', since: 20 * S, enteredAt: 20 * S, history: [spent().history[0], t] });
    expect(res.transition).toEqual(t);
    // The visit that fired does not fire again; the next entry does.
    const r = rule({ triggerAfterS: 60 });
    expect(step(res.record, r, { type: 'TICK', at: 90 * S }).effects).toEqual([]);
    const out = step(res.record, r, { type: 'POINT', at: 30 * S, zone: 'out' });
    expect(step(out.record, r, { type: 'POINT', at: 40 * S, zone: 'in' }).record).toMatchObject({ deadline: 100 * S });
  });

  it('RELEASE outside reports its transition, and the record goes away', () => {
    const res = step(spent(), rule(), release('out'));
    expect(res.record).toBeUndefined();
    expect(res.effects).toEqual([]);
    expect(res.transition).toEqual({ from: 'firedOnce', to: 'outside', at: 20 * S, reason: 'one_time_off' });
  });

  it('RELEASE moves only a spent pair', () => {
    const r = rule({ triggerOn: 'leave' });
    const inside = step(undefined, r, { type: 'POINT', at: 0, zone: 'in' }).record!;
    expect(step(inside, r, release('out')).record).toBe(inside);
    expect(step(undefined, r, release('in'))).toMatchObject({ record: undefined, effects: [] });
  });

  it('LEAVE_LAYER drops an inside or dwelling pair without firing or a transition; a spent one stays', () => {
    const leave = rule({ triggerOn: 'leave' });
    const inside = step(undefined, leave, { type: 'POINT', at: 0, zone: 'in' }).record!;
    expect(step(inside, leave, { type: 'LEAVE_LAYER', at: S })).toEqual({ record: undefined, effects: [] });
    const dwell = rule({ triggerAfterS: 10 });
    const dwelling = play(dwell, [['in', 0], ['tick', 10 * S]]).records[1]!;
    expect(dwelling.state).toBe('dwelling');
    expect(step(dwelling, dwell, { type: 'LEAVE_LAYER', at: 20 * S })).toEqual({ record: undefined, effects: [] });
    const once = spent();
    expect(step(once, rule({ oneTime: true }), { type: 'LEAVE_LAYER', at: 20 * S }).record).toBe(once);
  });

  it('FORGET drops a pair in any state without firing or a transition', () => {
    const r = rule({ triggerOn: 'leave' });
    const inside = step(undefined, r, { type: 'POINT', at: 0, zone: 'in' }).record!;
    for (const rec of [inside, spent()]) expect(step(rec, r, { type: 'FORGET', at: S })).toEqual({ record: undefined, effects: [] });
    expect(step(undefined, r, { type: 'FORGET', at: S })).toMatchObject({ record: undefined, effects: [] });
  });
});
