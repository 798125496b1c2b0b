// The typed repositories on the embedded store (the tables are made by store.ts first).
import type { Repositories, Reported } from '../repos/index.js';
import { SqliteApiHits, SqliteApplications, SqliteAuthCodes, SqliteTokens } from './accounts.js';
import type { SqliteAccess } from './doc-table.js';
import { SqliteLayers, SqlitePlaces } from './structure.js';
import { SqliteSubscriptions, SqliteTriggers } from './triggers.js';
import { SqliteUsers } from './users.js';

export function sqliteRepositories(s: SqliteAccess, changed: (name: Reported) => void): Repositories {
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
  };
}
