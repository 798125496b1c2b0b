// The engines the repository contract runs against: the embedded store in a temporary DATA_DIR
// (always) and MongoDB through the official driver in a throwaway database (when MONGODB_URL is set).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { openStore, type Store } from '../../src/store/store.js';

export interface EngineHarness {
  readonly name: 'embedded' | 'mongodb';
  /** Opens the store (creating every index), as buildApp does. */
  open(): Promise<Store>;
  /** Closes the open store and opens it again over the same data. */
  reopen(): Promise<Store>;
  /** Closes and throws the data away. */
  destroy(): Promise<void>;
}

export async function embeddedHarness(): Promise<EngineHarness> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'geotrigger-contract-'));
  let store: Store | undefined;
  const open = async () => (store = await openStore({ kind: 'embedded', dataDir }));
  return {
    name: 'embedded',
    open,
    async reopen() {
      await store?.close();
      return open();
    },
    async destroy() {
      await store?.close();
      store = undefined;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A unique database per run, dropped afterwards, so parallel runs never see each other's rows. */
export async function mongoHarness(url: string): Promise<EngineHarness> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5_000 });
  await client.connect();
  const db = client.db(`geotrigger_contract_${Date.now()}_${randomBytes(4).toString('hex')}`);
  let store: Store | undefined;
  // The client outlives a reopen, as @fastify/mongodb's does across a store restart.
  const open = async () => (store = await openStore({ kind: 'mongodb', db }));
  return {
    name: 'mongodb',
    open,
    async reopen() {
      await store?.close();
      return open();
    },
    async destroy() {
      await store?.close();
      store = undefined;
      try {
        await db.dropDatabase();
      } finally {
        await client.close();
      }
    },
  };
}
