// The typed repositories, one per collection, built for the engine the store runs on: the place a
// new typed repository is added (its interface beside the others in src/store/, its SQLite class in
// sqlite/, its MongoDB class in mongodb/, its MongoDB indexes in indexes.ts TYPED_INDEXES).
import type { Db } from 'mongodb';
import type { AttemptRepo, FiringRepo } from './firings.js';
import type { LastLocations, PointHistory } from './locations.js';
import type { MachineStates } from './machine-states.js';
import { MongoLastLocations, MongoPointHistory } from './mongodb/locations.js';
import { MongoMachineStates } from './mongodb/machine-states.js';
import { MongoTimeline } from './mongodb/timeline.js';
import { openMongoFirings } from './mongodb/firings.js';
import { SqliteLastLocations, SqlitePointHistory } from './sqlite/locations.js';
import { SqliteAttempts, SqliteFirings } from './sqlite/firings.js';
import { SqliteMachineStates } from './sqlite/machine-states.js';
import type { SqliteDb } from './sqlite/sqlite-db.js';
import { SqliteTimeline } from './sqlite/timeline.js';
import type { Timeline } from './timeline.js';

export interface Repositories {
  /** Location history (applications that keep it). */
  locations: PointHistory;
  /** Each user's last location. */
  lastLocations: LastLocations;
  /** The machines of the pairs that are not outside. */
  machines: MachineStates;
  /** The decision timeline. */
  timeline: Timeline;
  /** Firings (trigger/history) with their delivery (the outbox). */
  firings: FiringRepo;
  /** Every attempt of every callback. */
  attempts: AttemptRepo;
}

/** On the embedded engine: each creates or migrates its table, then prepares its statements. */
export function sqliteRepositories(sql: SqliteDb): Repositories {
  return {
    locations: new SqlitePointHistory(sql),
    lastLocations: new SqliteLastLocations(sql),
    machines: new SqliteMachineStates(sql),
    timeline: new SqliteTimeline(sql),
    firings: new SqliteFirings(sql),
    attempts: new SqliteAttempts(sql),
  };
}

/** On MongoDB: each over its collection, its indexes created first. */
export async function mongoRepositories(db: Db): Promise<Repositories> {
  const [locations, lastLocations, machines, timeline, { firings, attempts }] = await Promise.all([
    MongoPointHistory.open(db), MongoLastLocations.open(db), MongoMachineStates.open(db), MongoTimeline.open(db), openMongoFirings(db),
  ]);
  return { locations, lastLocations, machines, timeline, firings, attempts };
}
