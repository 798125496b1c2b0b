// The inbox as the API reads it (repos/social.ts InboxReads), over the messages collection that
// delivery writes through the collection interface (delivery/inbox.ts, firings.ts). Either engine.
import type { DocCollection } from './collection.js';
import type { MessageDoc } from './documents.js';
import { pageBounds } from './paging.js';
import type { InboxReads } from './repos/social.js';

export function inboxReads(col: DocCollection<MessageDoc>): InboxReads {
  return {
    async page(appId, userId, page) {
      const { offset, limit } = pageBounds(page);
      const filter = { app_id: appId, user_id: userId };
      const [items, total] = await Promise.all([col.find(filter, { sort: { date: -1, _id: -1 }, skip: offset, limit }).toArray(), col.countDocuments(filter)]);
      return { items, total };
    },
    async firstByTrigger(appId, userId, triggerIds) {
      const first = new Map<string, number>();
      if (triggerIds.length === 0) return first;
      const found = await col.find({ app_id: appId, user_id: userId, trigger_id: { $in: [...triggerIds] } }, { projection: { trigger_id: 1, date: 1 } }).toArray();
      for (const m of found) if (m.trigger_id) first.set(m.trigger_id, Math.min(m.date, first.get(m.trigger_id) ?? Infinity));
      return first;
    },
    async sentDates(appId) {
      const sent = await col.find({ app_id: appId, trigger_id: { $exists: false } }, { projection: { date: 1 } }).toArray();
      return sent.map((m) => m.date);
    },
    async removeForUser(appId, userId) {
      await col.deleteMany({ app_id: appId, user_id: userId });
    },
    async removeDatedBefore(cutoff, max) {
      const ids = (await col.find({ date: { $lt: cutoff } }, { projection: { _id: 1 }, limit: max }).toArray()).map((d) => d._id);
      return ids.length === 0 ? 0 : (await col.deleteMany({ _id: { $in: ids } })).deletedCount;
    },
  };
}
