// The repositories of firings and attempts for the engine the store opened.
import type { Db } from 'mongodb';
import type { AttemptRepo, FiringRepo } from './firings.js';
import { openMongoFirings } from './mongodb/firings.js';
import type { SqliteEngine } from './sqlite/engine.js';
import { SqliteAttempts, SqliteFirings } from './sqlite/firings.js';

export type DeliveryReposSource = { kind: 'embedded'; engine: SqliteEngine } | { kind: 'mongodb'; db: Db };

export async function openDeliveryRepos(source: DeliveryReposSource): Promise<{ firings: FiringRepo; attempts: AttemptRepo }> {
  if (source.kind === 'mongodb') return openMongoFirings(source.db);
  const firings = new SqliteFirings(source.engine.db, source.engine.commit);
  return { firings, attempts: new SqliteAttempts(source.engine.db) };
}
