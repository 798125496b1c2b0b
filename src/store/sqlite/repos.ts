// The typed repositories on the embedded store (the document tables are made by store.ts first;
// the plain tables by their repositories, sqlite/tables.ts).
import type { Repositories, Reported } from '../repos/index.js';
import { SqliteApiHits, SqliteApplications, SqliteAuthCodes, SqliteTokens } from './accounts.js';
import { SqliteLastLocations, SqlitePointHistory } from './locations.js';
import { SqliteMachineStates } from './machine-states.js';
import { SqliteAttempts, SqliteFirings } from './firings.js';
import type { SqliteDb } from './sqlite-db.js';
import { SqliteTimeline } from './timeline.js';
import { SqliteLayers, SqlitePlaces } from './structure.js';
import { SqliteSubscriptions, SqliteTriggers } from './triggers.js';
import { SqliteUsers } from './users.js';
import { SqliteGroupMembers, SqliteGroupMessages, SqliteGroups } from './groups.js';
import { SqliteMessages } from './messages.js';
import { SqliteDeviceMessages, SqliteServiceStarts } from './device-messages.js';
import { SqliteGeonotes, SqliteLocationBatches, SqliteShareLinks } from './social.js';

export function sqliteRepositories(s: SqliteDb, changed: (name: Reported) => void): Repositories {
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
    locations: new SqlitePointHistory(s),
    lastLocations: new SqliteLastLocations(s),
    machines: new SqliteMachineStates(s),
    timeline: new SqliteTimeline(s),
    firings: new SqliteFirings(s),
    attempts: new SqliteAttempts(s),
    messages: new SqliteMessages(s),
    deviceMessages: new SqliteDeviceMessages(s),
    serviceStarts: new SqliteServiceStarts(s),
  };
}
