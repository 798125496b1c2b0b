// The typed repositories on the embedded store (the tables are made by store.ts first).
import type { Repositories, Reported } from '../repos/index.js';
import { SqliteApiHits, SqliteApplications, SqliteAuthCodes, SqliteTokens } from './accounts.js';
import type { SqliteAccess } from './doc-table.js';
import { SqliteLayers, SqlitePlaces } from './structure.js';
import { SqliteSubscriptions, SqliteTriggers } from './triggers.js';
import { SqliteUsers } from './users.js';
import { SqliteGroupMembers, SqliteGroupMessages, SqliteGroups } from './groups.js';
import { SqliteGeonotes, SqliteLocationBatches, SqliteShareLinks } from './social.js';

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
    geonotes: new SqliteGeonotes(s),
    shareLinks: new SqliteShareLinks(s),
    locationBatches: new SqliteLocationBatches(s),
    groups: new SqliteGroups(s, () => changed('groups')),
    groupMembers: new SqliteGroupMembers(s, () => changed('group_members')),
    groupMessages: new SqliteGroupMessages(s),
  };
}
