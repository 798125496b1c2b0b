// Persisting what the shards returned, in the one order that survives a crash: firings first
// (idempotent by event id), then visits, machine records and timeline entries (one group of
// writes), then the points themselves (history, last locations). A location update is answered
// only after its batch went through all of that. The shards shaped every row (batch-rows.ts reads
// them); this is where they meet the store.
import type { GatedFiring } from '../schemas/firing.js';
import type { PointRow } from '../store/documents.js';
import { ROW_HISTORY, ROW_LAST, type BodiesOutput } from '../../workers/protocol.js';
import { BatchRows, storedLocation } from './batch-rows.js';
import { countResult } from './engine-metrics.js';
import type { ApplyResult } from './engine.js';
import type { EngineFiring, HostState, Pending } from './host-state.js';
import { machineRow } from './state-store.js';
import { eventId } from './timeline.js';

export { eventId };

/**
 * Firings first (idempotent by event id), then visits, then records and the timeline: a crash in
 * between replays safely. `rows`: the batch's points, for a batch of bodies (null: a tick, a
 * membership or a rule change, whose firings are located at the user's stored last location).
 */
export async function persistResult(s: HostState, res: ApplyResult, rows: BatchRows | null): Promise<void> {
  if (res.effects.length === 0 && res.changes.length === 0 && res.timeline === undefined) return;
  const now = s.ctx.now();
  const firings: EngineFiring[] = [];
  const gated: GatedFiring[] = [];
  const visits = new Map<string, { appId: string; placeId: string }>();
  for (const e of res.effects) {
    const appId = s.users.get(e.userId)?.appId;
    if (!appId) continue;
    if (e.type === 'FIRE') {
      const row = e.point ?? e.loc;
      firings.push({
        event_id: eventId(e.userId, e.triggerId, e.placeId, e.triggeredOn, e.at),
        app_id: appId, user_id: e.userId, trigger_id: e.triggerId, place_id: e.placeId,
        layer_id: s.fences.get(`${e.triggerId}:${e.placeId}`)?.layerId ?? '',
        triggered_on: e.triggeredOn, delay_s: e.delaySeconds, at: e.at, received_at: e.receivedAt ?? now,
        location: row !== undefined && rows !== null ? rows.location(row) : await storedLocation(s.ctx.store, appId, e.userId, e.at),
      });
    } else if (e.type === 'SUPPRESSED') {
      // Gated: a marked trigger/history row in the same write as the firings, nothing sent.
      gated.push({
        event_id: `${eventId(e.userId, e.triggerId, e.placeId, e.triggeredOn, e.at)}:gated`,
        app_id: appId, user_id: e.userId, trigger_id: e.triggerId, place_id: e.placeId,
        layer_id: s.fences.get(`${e.triggerId}:${e.placeId}`)?.layerId ?? '',
        triggered_on: e.triggeredOn, delay_s: e.delaySeconds, at: e.at, received_at: e.receivedAt ?? now, gate: e.reason,
      });
    } else if (e.type === 'VISIT') {
      visits.set(`${e.userId}:${e.placeId}:${e.at}`, { appId, placeId: e.placeId });
    }
  }
  if (firings.length || gated.length) await s.ports.recordFirings(firings, gated);
  await countVisits(s, visits.values());
  const machines = [];
  for (const c of res.changes) {
    const appId = s.users.get(c.userId)?.appId;
    // A user deleted meanwhile: their records went with them; a removal needs no application.
    if (appId === undefined && c.record !== null) continue;
    machines.push(machineRow(c, appId ?? '', c.record !== null && c.row !== undefined && rows !== null ? rows.machinePoint(c.row) : null, now));
  }
  // The timeline in the same turn as the records: the embedded store commits them together.
  const timeline = res.timeline !== undefined && s.timeline !== null ? s.timeline.rows(res.timeline, (u) => s.users.get(u)?.appId, now) : [];
  await Promise.all([s.ctx.store.machines.apply(machines), timeline.length > 0 ? s.timeline!.write(timeline) : undefined]);
  countResult(s.ctx.metrics, firings, gated, res.changes);
}

/** A batch's persist: the engine's results, then the points themselves. */
export async function persistBatch(s: HostState, out: BodiesOutput, requests: readonly Pending[]): Promise<void> {
  const rows = new BatchRows(out, requests);
  await persistResult(s, out, rows);
  // After the records: the last location tells a restarted engine which points were applied.
  const history: PointRow[] = [];
  const lasts: PointRow[] = [];
  const flags = out.stored.flags;
  for (let j = 0; j < flags.length; j++) {
    const f = flags[j]!;
    if ((f & (ROW_HISTORY | ROW_LAST)) === 0) continue;
    const row = rows.pointRow(j);
    if (f & ROW_HISTORY) history.push(row);
    if (f & ROW_LAST) lasts.push(row);
  }
  await Promise.all([s.ctx.store.locations.add(history), s.ctx.store.lastLocations.save(lasts)]);
  s.ctx.metrics.received(out.batch.at.length);
  s.ctx.metrics.applied(out.applied);
}

/** One counter update per place with its visits of the batch, all written together. */
async function countVisits(s: HostState, visits: Iterable<{ appId: string; placeId: string }>): Promise<void> {
  const perPlace = new Map<string, { appId: string; n: number }>();
  for (const v of visits) {
    const c = perPlace.get(v.placeId);
    if (c) c.n++;
    else perPlace.set(v.placeId, { appId: v.appId, n: 1 });
  }
  await Promise.all([...perPlace].map(([placeId, c]) => s.ctx.store.places.addVisits(c.appId, placeId, c.n)));
}
