// location/update bodies read in the shard: a bad body or point refuses its request whole, the
// others' points go into one column batch, and only the whole points the host needs go back.
import { describe, expect, it } from 'vitest';
import type { ShardOutput } from '../../workers/protocol.js';
import { bodiesOutput, readBodies } from '../../workers/read-bodies.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const at = (s: number) => new Date(NOW - 60_000 + s * 1000).toISOString();
const pt = (s: number, lat: number) => ({ date: at(s), location: { type: 'point', position: { latitude: lat, longitude: 2, horizontal_accuracy: 12 } }, raw: { battery: s } });
const mine = { at: NOW - 1000, lat: 5, lon: 6, acc: 7 };

describe('readBodies', () => {
  it('parses each body, refuses bad ones whole with the right error, and numbers the rest in one batch', () => {
    const read = readBodies([
      { userId: 'a', text: JSON.stringify([pt(1, 10), pt(3, 11), pt(3, 12), pt(2, 13)]), now: NOW, all: false },
      { userId: 'b', text: '[{"date":', now: NOW, all: false },
      { userId: 'c', text: JSON.stringify([pt(1, 10), pt(2, 95)]), now: NOW, all: false },
      { userId: 'd', rows: [mine], now: NOW, all: true },
      { userId: 'e', text: '', now: NOW, all: false },
    ]);
    expect(read.results).toEqual([
      { first: 0, count: 4, newest: 2 }, // the later of the two newest points, applied last
      { error: 'Request body is not valid JSON', code: 'invalid_request' },
      { error: expect.stringContaining('point 1'), code: 'invalid_input' },
      { first: 4, count: 1, newest: 4 },
      { error: 'Input data must be an array of data points', code: 'invalid_input' },
    ]);
    const b = read.batch;
    expect(b.users).toEqual(['a', 'd']);
    expect([...b.user]).toEqual([0, 0, 0, 0, 1]);
    expect([...b.lat]).toEqual([10, 11, 12, 13, 5]);
    expect([...b.acc]).toEqual([12, 12, 12, 12, 7]);
    expect(b.at[1]).toBe(Date.parse(at(3)));
    expect(read.points[0]!.raw).toEqual({ battery: 1 });
    // The host read d's point itself: only its row is here.
    expect(read.points[4]).toBeUndefined();
  });

  it('drops __proto__ and constructor keys as the HTTP layer does', () => {
    const text = '[{"date":"2026-01-01T11:59:30Z","location":{"position":{"latitude":1,"longitude":2}},"raw":{"__proto__":{"x":1},"ok":true}}]';
    const read = readBodies([{ userId: 'a', text, now: NOW, all: false }]);
    expect(read.points[0]!.raw).toEqual({ ok: true });
    expect(Object.getPrototypeOf(read.points[0]!.raw)).toBe(Object.prototype);
  });
});

describe('bodiesOutput', () => {
  it('sends back whole only the newest point of each request, every point of an `all` request, and each firing’s point', () => {
    const read = readBodies([
      { userId: 'a', text: JSON.stringify([pt(1, 10), pt(5, 11), pt(9, 12)]), now: NOW, all: false },
      { userId: 'b', text: JSON.stringify([pt(1, 20), pt(2, 21)]), now: NOW, all: true },
      { userId: 'c', text: JSON.stringify([pt(1, 30), pt(4, 31), pt(8, 32)]), now: NOW, all: false },
    ]);
    const fire = { type: 'FIRE', triggerId: 't', placeId: 'p', triggeredOn: 'enter', delaySeconds: 0 } as const;
    const out: ShardOutput = {
      effects: [
        { ...fire, userId: 'a', at: read.batch.at[0]!, point: 0 },
        // A dwell reached inside the batch, between c's second and third points: located by the second.
        { ...fire, userId: 'c', at: read.batch.at[6]! + 1000 },
        { type: 'VISIT', userId: 'a', placeId: 'p', at: read.batch.at[1]!, point: 1 },
      ] as ShardOutput['effects'],
      changes: [],
    };
    const reply = bodiesOutput(out, read, [
      { userId: 'a', now: NOW, all: false }, { userId: 'b', now: NOW, all: true }, { userId: 'c', now: NOW, all: false },
    ]);
    expect(reply.full.map(([k]) => k)).toEqual([0, 2, 3, 4, 6, 7]);
    // Rows of points the host read itself never come back, even when they fire or are kept as history.
    const withRows = readBodies([{ userId: 'h', rows: [{ at: NOW - 5000, lat: 1, lon: 2, acc: 3 }], now: NOW, all: true }]);
    const none = bodiesOutput({ effects: [{ ...fire, userId: 'h', at: NOW - 5000, point: 0 }] as ShardOutput['effects'], changes: [] }, withRows, [{ userId: 'h', now: NOW, all: true }]);
    expect(none.full).toEqual([]);
    expect(reply.full.every(([k, p]) => p === read.points[k])).toBe(true);
    expect(reply.results).toBe(read.results);
    expect(reply.effects).toBe(out.effects);
  });
});
