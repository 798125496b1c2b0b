// location/update bodies read in the shard: a bad body or point refuses its request whole, the
// others' points go into one column batch, and the rows to store come back shaped: every point of
// a request whose application keeps history, each request's newest, each firing's point, with
// uuids and the JSON parts as text.
import { describe, expect, it } from 'vitest';
import { ROW_HISTORY, ROW_LAST, ROW_OWN_UUID, type ShardOutput } from '../../workers/protocol.js';
import { bodiesOutput, readBodies } from '../../workers/read-bodies.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const at = (s: number) => new Date(NOW - 60_000 + s * 1000).toISOString();
const pt = (s: number, lat: number) => ({ date: at(s), location: { type: 'point', position: { latitude: lat, longitude: 2, horizontal_accuracy: 12 } }, raw: { battery: s } });

describe('readBodies', () => {
  it('parses each body (text or a form\'s value), refuses bad ones whole with the right error, and numbers the rest in one batch', () => {
    const read = readBodies([
      { userId: 'a', text: JSON.stringify([pt(1, 10), pt(3, 11), pt(3, 12), pt(2, 13)]), now: NOW, all: false },
      { userId: 'b', text: '[{"date":', now: NOW, all: false },
      { userId: 'c', text: JSON.stringify([pt(1, 10), pt(2, 95)]), now: NOW, all: false },
      { userId: 'd', value: [pt(4, 5)], now: NOW + 7, all: true },
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
    expect([...b.acc]).toEqual([12, 12, 12, 12, 12]);
    expect([...b.recv]).toEqual([NOW, NOW, NOW, NOW, NOW + 7]);
    expect(b.at[1]).toBe(Date.parse(at(3)));
    expect(read.points[0]!.raw).toEqual({ battery: 1 });
  });

  it('drops __proto__ and constructor keys as the HTTP layer does', () => {
    const text = '[{"date":"2026-01-01T11:59:30Z","location":{"position":{"latitude":1,"longitude":2}},"raw":{"__proto__":{"x":1},"ok":true}}]';
    const read = readBodies([{ userId: 'a', text, now: NOW, all: false }]);
    expect(read.points[0]!.raw).toEqual({ ok: true });
    expect(Object.getPrototypeOf(read.points[0]!.raw)).toBe(Object.prototype);
  });
});

describe('bodiesOutput', () => {
  it('keeps the newest point of each request, every point of an `all` request and each firing\'s point, shaped for the store', () => {
    const own = { ...pt(2, 21), uuid: 'phone-uuid-1', client: { name: 'sdk' }, location: { position: { latitude: 21, longitude: 2, speed: 3.5, heading: 90 } } };
    const read = readBodies([
      { userId: 'a', text: JSON.stringify([pt(1, 10), pt(5, 11), pt(9, 12)]), now: NOW, all: false },
      { userId: 'b', text: JSON.stringify([pt(1, 20), own]), now: NOW, all: true },
      { userId: 'c', text: JSON.stringify([pt(1, 30), pt(4, 31), pt(8, 32)]), now: NOW, all: false },
    ]);
    const fire = { type: 'FIRE', triggerId: 't', placeId: 'p', triggeredOn: 'enter', delaySeconds: 0 } as const;
    const out: ShardOutput = {
      effects: [
        { ...fire, userId: 'a', at: read.batch.at[0]!, point: 0 },
        // A dwell reached inside the batch, located by c's second point.
        { ...fire, userId: 'c', at: read.batch.at[6]! + 1000, loc: 6 },
        { type: 'VISIT', userId: 'a', placeId: 'p', at: read.batch.at[1]!, point: 1 },
      ] as ShardOutput['effects'],
      changes: [],
    };
    const reply = bodiesOutput(out, read, [
      { userId: 'a', now: NOW, all: false }, { userId: 'b', now: NOW, all: true }, { userId: 'c', now: NOW, all: false },
    ], 5);
    const s = reply.stored;
    expect([...s.row]).toEqual([0, 2, 3, 4, 6, 7]);
    expect([...s.flags]).toEqual([0, ROW_LAST, ROW_HISTORY, ROW_HISTORY | ROW_LAST | ROW_OWN_UUID, 0, ROW_LAST]);
    // b's second point: its own uuid, its raw and client as text, its optional numbers; the others get a uuid each.
    expect(s.text.slice(9, 12)).toEqual(['phone-uuid-1', '{"battery":2}', '{"name":"sdk"}']);
    expect([...s.extra.slice(12, 16)]).toEqual([3.5, NaN, 90, NaN]);
    expect(s.text[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set([0, 1, 2, 4, 5].map((j) => s.text[j * 3])).size).toBe(5);
    expect(s.text[1]).toBe('{"battery":1}');
    expect(reply.results).toBe(read.results);
    expect(reply.effects).toBe(out.effects);
    expect(reply.batch).toBe(read.batch);
  });
});
