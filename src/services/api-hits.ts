// API hits per application per UTC day (reference §4.12: application/list's `stats.api_hits` and
// application/api_hits/:id). Counted in memory by the api-hits plugin and flushed periodically in
// one bulk write: each process keeps its own running total per (application, day) in a document
// only it writes (`${app}:${day}:${node}`), so a flush is a replacement that needs no read and
// several nodes never lose each other's counts. Reads sum the stored documents and add what this
// process has not flushed yet. A crash loses at most one flush interval of counts.
import type { ApiHitsDoc } from '../store/documents.js';
import { newId } from '../store/ids.js';
import type { Store } from '../store/store.js';
import type { ServiceContext } from './context.js';

const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

interface Count {
  appId: string;
  day: string;
  hits: number;
  /** What the stored document holds. */
  flushed: number;
}

export class ApiHitCounter {
  private readonly counts = new Map<string, Count>();

  /** `node` names this process's documents; a new one per process, so no two writers share one. */
  constructor(private readonly node: string = newId()) {}

  hit(appId: string, at: number): void {
    const day = dayOf(at);
    const k = `${appId}\u0000${day}`;
    const c = this.counts.get(k);
    if (c) c.hits++;
    else this.counts.set(k, { appId, day, hits: 1, flushed: 0 });
  }

  /** Hits of `appId` counted here and not flushed yet, by day. */
  unflushed(appId: string): Map<string, number> {
    const out = new Map<string, number>();
    for (const c of this.counts.values()) if (c.appId === appId && c.hits > c.flushed) out.set(c.day, c.hits - c.flushed);
    return out;
  }

  /** Writes every changed running total in one bulk write; days before today are then forgotten. */
  async flush(store: Store, now: number): Promise<void> {
    const changed = [...this.counts.values()].filter((c) => c.hits > c.flushed).map((c) => ({ c, hits: c.hits }));
    if (changed.length > 0) {
      await store.apiHits.save(changed.map(({ c, hits }): ApiHitsDoc => ({ _id: `${c.appId}:${c.day}:${this.node}`, app_id: c.appId, day: c.day, hits })));
      for (const { c, hits } of changed) c.flushed = hits;
    }
    const today = dayOf(now);
    for (const [k, c] of this.counts) if (c.day < today && c.hits === c.flushed) this.counts.delete(k);
  }
}

/** Hits by day: the stored documents of every process plus this one's unflushed counts. */
async function hitsByDay(ctx: ServiceContext, appId: string): Promise<Map<string, number>> {
  const docs = await ctx.store.apiHits.forApp(appId);
  const byDay = ctx.apiHits.unflushed(appId);
  for (const d of docs) byDay.set(d.day, (byDay.get(d.day) ?? 0) + d.hits);
  return byDay;
}

/** application/list and application/info's `stats`: today and this month (UTC). */
export async function apiHitStats(ctx: ServiceContext, appId: string) {
  const { today, this_month } = (await apiHits(ctx, appId)).api_hits;
  return { api_hits: { today, this_month } };
}

/** application/api_hits/:id: today, this month, the total, by day (the last 90) and by month. */
export async function apiHits(ctx: ServiceContext, appId: string) {
  const now = ctx.now();
  const today = dayOf(now);
  const month = today.slice(0, 7);
  const since = dayOf(now - 89 * 86_400_000);
  const daily: Record<string, number> = {};
  const monthly: Record<string, number> = {};
  let total = 0;
  for (const [day, n] of [...(await hitsByDay(ctx, appId))].sort(([a], [b]) => a.localeCompare(b))) {
    total += n;
    monthly[`${day.slice(0, 7)}-01`] = (monthly[`${day.slice(0, 7)}-01`] ?? 0) + n;
    if (day >= since) daily[day] = n;
  }
  return { api_hits: { today: daily[today] ?? 0, this_month: monthly[`${month}-01`] ?? 0, total, daily, monthly } };
}
