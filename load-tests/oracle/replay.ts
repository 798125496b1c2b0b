// Runs the oracle over a finished load phase: for every phone, its acknowledged requests in order,
// each point rebuilt from its recorded device time (points are pure functions of the seed), then
// the deadlines that the clock fires before the end of observation.
import type { PhoneRecord } from '../load-generator.js';
import { makePoint, makeStalePoint, type PointContext } from '../points.js';
import { UserOracle, type Ambiguity, type ExpectedEvent, type OracleOptions } from './simulate.js';

export interface OracleRun {
  expected: ExpectedEvent[];
  ambiguities: Ambiguity[];
  gated: Record<string, number>;
  staleIgnored: number;
  pointsApplied: number;
}

export function replay(ctx: PointContext, records: PhoneRecord[], excluded: Set<number>, observedUntil: number, o: OracleOptions): OracleRun {
  const out: OracleRun = { expected: [], ambiguities: [], gated: {}, staleIgnored: 0, pointsApplied: 0 };
  records.forEach((rec, u) => {
    if (excluded.has(u)) return;
    const oracle = new UserOracle(ctx.world, ctx.world.users[u], o);
    rec.requests.forEach((req, r) => {
      if (!req.ok) return;
      for (let k = req.first; k < req.first + req.count; k++) {
        const t = rec.times[k];
        const p = rec.stale.has(k) ? makeStalePoint(ctx, u, k, t) : makePoint(ctx, u, k, t);
        oracle.apply({ t, lat: p.lat, lng: p.lng, acc: p.acc, sentAt: req.sentAt, ackAt: req.ackAt, req: r });
      }
    });
    oracle.finish(observedUntil);
    for (const e of oracle.expected) out.expected.push(e);
    for (const a of oracle.ambiguities) out.ambiguities.push(a);
    for (const [k, v] of oracle.gated) out.gated[k] = (out.gated[k] ?? 0) + v;
    out.staleIgnored += oracle.staleIgnored;
    out.pointsApplied += oracle.applied;
  });
  return out;
}
