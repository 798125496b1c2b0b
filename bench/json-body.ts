// Benchmark of the JSON body parser (src/http/error-handler.ts parseJsonBody) on the harness's
// location/update bodies: µs per body against a bare JSON.parse of the same text, measured in the
// same run, so the figure is the prototype-poisoning guard's overhead. Bodies rotate through 64
// distinct texts so that no search result can be cached.
// Run: npx tsx bench/json-body.ts [--points 50] [--bodies 20000]
import type { FastifyRequest } from 'fastify';
import { performance } from 'node:perf_hooks';
import { parseJsonBody } from '../src/http/error-handler.js';
import { batchJson, type SimPoint } from '../load-tests/points.js';
import { numberArg } from './args.js';

const POINTS = numberArg('points', 50);
const N = numberArg('bodies', 20_000);

const t0 = Date.UTC(2026, 10, 22);
const bodies = Array.from({ length: 64 }, (_, k) => {
  const points: SimPoint[] = Array.from({ length: POINTS }, (_, i) => ({
    t: t0 + k * 60_000 + i * 1000, lat: 45.5 + i * 1e-4, lng: -122.6 + k * 1e-4, acc: 12.3, speed: 4.5, heading: 123, altitude: 40, vacc: 7, shape: 0,
  }));
  return batchJson(points, k * POINTS);
});

let sink = 0;
function perBody(f: (text: string) => unknown): number {
  for (let i = 0; i < 2_000; i++) sink += f(bodies[i & 63]!) ? 1 : 0;
  const start = performance.now();
  for (let i = 0; i < N; i++) sink += f(bodies[i & 63]!) ? 1 : 0;
  return ((performance.now() - start) * 1000) / N;
}
const viaParser = (text: string) => {
  let out: unknown;
  parseJsonBody({} as FastifyRequest, text, (err, value) => {
    if (err) throw err;
    out = value;
  });
  return out;
};

console.log(`${POINTS}-point bodies of ${bodies[0]!.length} bytes, ${N} each, alternating`);
const bare: number[] = [];
const parser: number[] = [];
for (let round = 0; round < 3; round++) {
  bare.push(perBody((t) => JSON.parse(t)));
  parser.push(perBody(viaParser));
}
const best = (xs: number[]) => Math.min(...xs);
console.log(`bare JSON.parse: ${bare.map((x) => x.toFixed(1)).join(', ')} µs per body`);
console.log(`parseJsonBody:   ${parser.map((x) => x.toFixed(1)).join(', ')} µs per body`);
console.log(`ratio (best of 3): ${(best(parser) / best(bare)).toFixed(3)}`);
// Using every result keeps the JIT from dropping the parses.
if (sink === 0) throw new Error('no body parsed');
