// An older release kept a firing in two documents (`trigger_history` and `outbox`) and did not log
// the attempt that delivered. At open they are moved into `firings`, on the server ($merge), then
// dropped. Every step can run again: a start that dies midway, or two nodes starting at once,
// end with the same documents.
import type { Db, Document } from 'mongodb';

async function exists(db: Db, name: string): Promise<boolean> {
  return (await db.listCollections({ name }, { nameOnly: true }).toArray()).length > 0;
}

/** `$field` where present, else nothing (the field stays absent). */
const kept = (field: string) => ({ $ifNull: [`$${field}`, '$$REMOVE'] });

export async function moveOldDelivery(db: Db): Promise<void> {
  const [outbox, history] = await Promise.all([exists(db, 'outbox'), exists(db, 'trigger_history')]);
  if (!outbox && !history) return;
  const delivering = { $eq: ['$status', 'delivering'] };
  if (outbox) {
    // Callbacks: their delivery as the outbox had it. Those without a history entry (trigger/run's
    // stand-in user, a user deleted since) are not listed.
    const pipeline: Document[] = [
      {
        $project: {
          app_id: 1, user_id: 1, trigger_id: 1, place_id: 1, layer_id: { $ifNull: ['$layer_id', ''] },
          type: 'callback', triggered_on: 'enter', delay_s: { $literal: 0 }, date: { $ifNull: ['$created_at', 0] }, unlisted: { $literal: true },
          url: 1, status: 1, attempts: { $ifNull: ['$attempts', 0] }, rounds: { $ifNull: ['$rounds', 0] },
          // An object payload (written before payloads were text) stays one: the lease serialises it.
          payload: { $cond: [{ $eq: ['$status', 'delivered'] }, '$$REMOVE', kept('payload')] },
          next_attempt_at: { $cond: [{ $in: ['$status', ['pending', 'delivering']] }, { $cond: [delivering, { $ifNull: ['$lease_until', '$next_attempt_at'] }, '$next_attempt_at'] }, '$$REMOVE'] },
          lease_owner: { $cond: [delivering, kept('lease_owner'), '$$REMOVE'] },
          last_status: kept('last_status'),
          last_error: { $cond: [{ $eq: ['$status', 'delivered'] }, '$$REMOVE', kept('last_error')] },
          delivered_at: kept('delivered_at'), last_duration_ms: kept('last_duration_ms'),
          created_at: { $ifNull: ['$created_at', 0] }, updated_at: { $ifNull: ['$updated_at', 0] },
          seq: { $multiply: [{ $ifNull: ['$created_at', 0] }, 4096] },
        },
      },
      { $merge: { into: 'firings', on: '_id', whenMatched: 'keepExisting', whenNotMatched: 'insert' } },
    ];
    await db.collection('outbox').aggregate(pipeline).toArray();
  }
  if (history) {
    const historyFields = {
      app_id: '$$new.app_id', user_id: '$$new.user_id', trigger_id: '$$new.trigger_id', place_id: '$$new.place_id', layer_id: '$$new.layer_id',
      type: '$$new.type', triggered_on: '$$new.triggered_on', delay_s: '$$new.delay_s', date: '$$new.date', run: '$$new.run', gate: '$$new.gate',
      unlisted: '$$REMOVE',
    };
    const callback = { $and: [{ $eq: ['$type', 'callback'] }, { $eq: [{ $type: '$gate' }, 'missing'] }] };
    const pipeline: Document[] = [
      {
        $project: {
          app_id: 1, user_id: 1, trigger_id: 1, place_id: 1, layer_id: 1, type: 1, triggered_on: 1, delay_s: 1, date: 1,
          run: { $cond: [{ $eq: ['$run', true] }, true, '$$REMOVE'] }, gate: kept('gate'),
          // Where retention took the outbox row, the history's copy of its delivery remains.
          status: { $cond: [callback, { $ifNull: ['$delivery.status', 'pending'] }, '$$REMOVE'] },
          attempts: { $ifNull: ['$delivery.attempts', 0] }, rounds: { $literal: 0 },
          last_error: { $cond: [{ $eq: ['$delivery.status', 'delivered'] }, '$$REMOVE', kept('delivery.last_error')] },
          created_at: '$date', updated_at: { $ifNull: ['$delivery.updated_at', '$date'] },
          seq: { $multiply: ['$date', 4096] },
        },
      },
      { $merge: { into: 'firings', on: '_id', whenMatched: [{ $set: historyFields }], whenNotMatched: 'insert' } },
    ];
    await db.collection('trigger_history').aggregate(pipeline).toArray();
  }
  // The attempt that delivered, where the log does not have it yet.
  await db.collection('firings').aggregate([
    { $match: { status: 'delivered', delivered_at: { $exists: true }, attempts: { $gt: 0 } } },
    { $lookup: { from: 'delivery_attempts', let: { id: '$_id', n: '$attempts' }, as: 'logged', pipeline: [
      { $match: { $expr: { $and: [{ $eq: ['$event_id', '$$id'] }, { $eq: ['$attempt', '$$n'] }] } } }, { $limit: 1 },
    ] } },
    { $match: { logged: { $size: 0 } } },
    {
      $project: {
        _id: { $concat: ['$_id', ':', { $toString: '$attempts' }] }, event_id: '$_id', attempt: '$attempts', app_id: 1, at: '$delivered_at',
        duration_ms: { $ifNull: ['$last_duration_ms', 0] }, status_code: kept('last_status'), outcome: 'delivered',
      },
    },
    { $merge: { into: 'delivery_attempts', on: '_id', whenMatched: 'keepExisting', whenNotMatched: 'insert' } },
  ]).toArray();
  if (outbox) await db.collection('outbox').drop();
  if (history) await db.collection('trigger_history').drop();
}
