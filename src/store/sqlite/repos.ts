// The typed repositories on the embedded store (the document tables are made by store.ts first;
// the engine's plain tables by their repositories, sqlite/tables.ts).
import type { Repositories, Reported } from '../repos/index.js';
import { SqliteApiHits, SqliteApplications, SqliteAuthCodes, SqliteTokens } from './accounts.js';
import type { SqliteAccess } from './doc-table.js';
import { SqliteLastLocations, SqlitePointHistory } from './locations.js';
import { SqliteMachineStates } from './machine-states.js';
import { SqliteAttempts, SqliteFirings } from './firings.js';
import { SqliteDb } from './sqlite-db.js';
import { SqliteTimeline } from './timeline.js';
import { SqliteLayers, SqlitePlaces } from './structure.js';
import { SqliteSubscriptions, SqliteTriggers } from './triggers.js';
import { SqliteUsers } from './users.js';

export function sqliteRepositories(s: SqliteAccess, changed: (name: Reported) => void): Repositories {
  const sql = new SqliteDb(s.db, s.commit);
  return {
    applications: new SqliteApplications(s, () => changed('applications')),
    tokens: new SqliteTokens(s, () => changed('tokens')),
    authCodes: new SqliteAuthCodes(s),
    apiHits: new SqliteApiHits(s),
    users: new SqliteUsers(s, () => changed('users')),
    layers: new SqliteLayers(s, () => changed('layers')),
    places: new SqlitePlaces(s),
    triggers: new SqliteTriggers(s, () => changed('triggers')),
    subscriptions: new SqliteSubscriptions(s),
    locations: new SqlitePointHistory(sql),
    lastLocations: new SqliteLastLocations(sql),
    machines: new SqliteMachineStates(sql),
    timeline: new SqliteTimeline(sql),
    firings: new SqliteFirings(sql),
    attempts: new SqliteAttempts(sql),
  };
}
