// The typed repositories on MongoDB, over the Db that @fastify/mongodb (or a MongoClient) gives.
import type { Db } from 'mongodb';
import type { Repositories, Reported } from '../repos/index.js';
import { MongoApiHits, MongoApplications, MongoAuthCodes, MongoTokens } from './accounts.js';
import { MongoLastLocations, MongoPointHistory } from './locations.js';
import { MongoMachineStates } from './machine-states.js';
import { openMongoFirings } from './firings.js';
import { MongoTimeline } from './timeline.js';
import { MongoLayers, MongoPlaces } from './structure.js';
import { MongoSubscriptions, MongoTriggers } from './triggers.js';
import { MongoUsers } from './users.js';
import { MongoDeviceMessages, MongoMessages, MongoServiceStarts } from './messages.js';
import { MongoGeonotes, MongoGroupMembers, MongoGroupMessages, MongoGroups, MongoLocationBatches, MongoShareLinks } from './social.js';

/** The repositories of plain collections create their indexes as they open (indexes.ts TYPED_INDEXES). */
export async function mongoRepositories(db: Db, changed: (name: Reported) => void): Promise<Repositories> {
  const [locations, lastLocations, machines, timeline, { firings, attempts }, messages, deviceMessages] = await Promise.all([
    MongoPointHistory.open(db), MongoLastLocations.open(db), MongoMachineStates.open(db), MongoTimeline.open(db), openMongoFirings(db),
    MongoMessages.open(db), MongoDeviceMessages.open(db),
  ]);
  return {
    applications: new MongoApplications(db, () => changed('applications')),
    tokens: new MongoTokens(db, () => changed('tokens')),
    authCodes: new MongoAuthCodes(db),
    apiHits: new MongoApiHits(db),
    users: new MongoUsers(db, () => changed('users')),
    layers: new MongoLayers(db, () => changed('layers')),
    places: new MongoPlaces(db),
    triggers: new MongoTriggers(db, () => changed('triggers')),
    subscriptions: new MongoSubscriptions(db),
    geonotes: new MongoGeonotes(db),
    shareLinks: new MongoShareLinks(db),
    locationBatches: new MongoLocationBatches(db),
    groups: new MongoGroups(db, () => changed('groups')),
    groupMembers: new MongoGroupMembers(db, () => changed('group_members')),
    groupMessages: new MongoGroupMessages(db),
    locations,
    lastLocations,
    machines,
    timeline,
    firings,
    attempts,
    messages,
    deviceMessages,
    serviceStarts: new MongoServiceStarts(db),
  };
}
