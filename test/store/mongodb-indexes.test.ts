// The indexes MongoDB gets and the embedded engine does not: retention's range sweeps on dates
// (IndexSpec.mongodbOnly). Runs only where MONGODB_URL names a server.
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';

describe('MongoDB indexes', () => {
  // No MongoDB here (none can be installed on the build machines): one skipped entry says so.
  if (!process.env.MONGODB_URL) it.skip('skipped: MONGODB_URL is not set; it runs against the MongoDB server MONGODB_URL names', () => {});
  else it('creates the date indexes the retention sweeps use', async () => {
    const client = new MongoClient(process.env.MONGODB_URL!, { serverSelectionTimeoutMS: 5_000 });
    await client.connect();
    const db = client.db(`geotrigger_indexes_${Date.now()}_${randomBytes(4).toString('hex')}`);
    try {
      const store = await openStore({ kind: 'mongodb', db });
      const keys = async (name: string) => (await db.collection(name).indexes()).map((i) => i.key);
      for (const name of ['firings', 'messages', 'locations']) expect(await keys(name)).toContainEqual({ date: 1 });
      expect(await keys('delivery_attempts')).toContainEqual({ at: 1 });
      await store.close();
    } finally {
      await db.dropDatabase();
      await client.close();
    }
  });
});
