// A point batch crosses to the shard threads by postMessage. Its columns share one buffer (one
// copy per message): every column must keep its own values across the clone, for any size.
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { emptyBatch, putPoint, toBatch, type PointBatch, type PointInput } from '../../workers/protocol.js';

function viaPort(batch: PointBatch): PointBatch {
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(batch);
  const got = receiveMessageOnPort(port2)!.message as PointBatch;
  port1.close();
  return got;
}

const points = (n: number): PointInput[] =>
  Array.from({ length: n }, (_, i) => ({ userId: `u${i % 3}`, at: 1_700_000_000_000 + i, lat: 45 + i / 1000, lon: -122 - i / 1000, acc: i % 4 === 0 ? null : 5 + i }));

describe('PointBatch columns', () => {
  it.each([1, 2, 7, 50, 1000])('keep every point of a %i-point batch across a postMessage', (n) => {
    const input = points(n);
    const got = viaPort(toBatch(input));
    expect(got.users).toEqual(['u0', 'u1', 'u2'].slice(0, Math.min(n, 3)));
    input.forEach((p, k) => {
      expect(got.users[got.user[k]!]).toBe(p.userId);
      expect(got.at[k]).toBe(p.at);
      expect(got.lat[k]).toBe(p.lat);
      expect(got.lon[k]).toBe(p.lon);
      expect(got.acc[k]).toBe(p.acc ?? NaN);
    });
    for (const col of [got.user, got.at, got.lat, got.lon, got.acc]) expect(col.length).toBe(n);
  });

  it('writes one column without touching the others', () => {
    const b = emptyBatch(4);
    putPoint(b, 3, { userId: 'x', at: 9, lat: 8, lon: 7, acc: 6 }, new Map());
    expect([...b.at]).toEqual([0, 0, 0, 9]);
    expect([...b.lat]).toEqual([0, 0, 0, 8]);
    expect([...b.lon]).toEqual([0, 0, 0, 7]);
    expect([...b.acc]).toEqual([0, 0, 0, 6]);
    expect([...b.user]).toEqual([0, 0, 0, 0]);
  });

  it('an empty batch has empty columns', () => {
    const got = viaPort(emptyBatch(0));
    expect([got.user.length, got.at.length, got.acc.length]).toEqual([0, 0, 0]);
  });
});
