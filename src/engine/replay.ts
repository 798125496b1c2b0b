// The replay (POST /1/trigger/replay): a track run through a private, in-process engine built from
// the current documents, with the shard code the live engine runs (the same zones, machines,
// order rules and timeline recording), and nothing stored: the engine is thrown away after. The
// track's timestamps are the only clock: before each point the dwell deadlines it passed fire at
// their deadline, and after the last point every deadline still pending fires as the live clock
// would fire it for a phone that stays silent where it last was.
import type { ReplayOutput, ReplayRun } from '../services/context.js';
import type { RecordSeed, ShardOptions, TimelineRecord } from '../../workers/protocol.js';
import { Engine } from './engine.js';
import { expandAll } from './geofences.js';
import { timeKey } from '../store/ids.js';
import { timelineDoc, timelineRow } from './timeline.js';

export async function replayTrack(run: ReplayRun, shard: ShardOptions = {}): Promise<ReplayOutput> {
  const onLayers = run.layerIds ? new Set(run.layerIds) : null;
  const sel = run.select;
  const any = sel !== undefined && sel.layerIds.length + sel.placeIds.length + sel.triggerIds.length > 0;
  const fences = expandAll(run.docs).filter(
    (f) =>
      (onLayers === null || onLayers.has(f.layerId)) &&
      (!any || sel!.layerIds.includes(f.layerId) || sel!.placeIds.includes(f.placeId) || sel!.triggerIds.includes(f.triggerId)),
  );
  const keys = new Map(fences.map((f) => [f.key, f]));
  const records: RecordSeed[] = [];
  for (const s of run.startStates) {
    const f = keys.get(`${s.triggerId}:${s.placeId}`);
    if (!f) continue;
    const record: RecordSeed['record'] = { state: s.state, since: s.since, enteredAt: s.since, history: [] };
    // Inside a dwell trigger's place: its deadline counts from `since`, as it would have live.
    if (s.state === 'inside' && f.triggerOn === 'enter' && f.triggerAfterS > 0) record.deadline = s.since + f.triggerAfterS * 1000;
    records.push({ userId: run.userId, triggerId: s.triggerId, placeId: s.placeId, record });
  }
  const engine = new Engine({ inProcess: true, shards: 1, shard: { ...shard, timeline: true, testHooks: false } });
  const timeline: TimelineRecord[] = [];
  try {
    await engine.start({
      fences,
      users: [{ userId: run.userId, layers: [...new Set(fences.map((f) => f.layerId))], timezone: run.timezone }],
      records,
    });
    if (run.points.length > 0) {
      const out = await engine.applyPoints(run.points.map((p) => ({ userId: run.userId, at: p.at, lat: p.lat, lon: p.lon, acc: p.acc })));
      for (const t of out.timeline ?? []) timeline.push(t);
    }
    const rest = await engine.tick(Number.MAX_VALUE);
    for (const t of rest.timeline ?? []) timeline.push(t);
    const view = await engine.inspect(run.userId);
    const finalStates = (view?.pairs ?? [])
      .map((p) => ({ triggerId: p.triggerId, placeId: p.placeId, state: p.record.state, since: p.record.since }))
      .sort((a, b) => (a.triggerId < b.triggerId ? -1 : a.triggerId > b.triggerId ? 1 : a.placeId < b.placeId ? -1 : a.placeId > b.placeId ? 1 : 0));
    // Ids from the inputs only: the same request gives the same ids.
    const entries = timeline.map((t, i) => timelineDoc(timelineRow(t, run.appId, t.at), `${timeKey(t.at)}-replay-${String(i).padStart(6, '0')}`));
    return { entries, finalStates };
  } finally {
    await engine.close();
  }
}
