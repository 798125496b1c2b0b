// The typed repositories on MongoDB, over the Db that @fastify/mongodb (or a MongoClient) gives.
import type { Db } from 'mongodb';
import type { Repositories, Reported } from '../repos/index.js';
import { MongoApiHits, MongoApplications, MongoAuthCodes, MongoTokens } from './accounts.js';
import { MongoLayers, MongoPlaces } from './structure.js';
import { MongoSubscriptions, MongoTriggers } from './triggers.js';
import { MongoUsers } from './users.js';
import { MongoGeonotes, MongoGroupMembers, MongoGroupMessages, MongoGroups, MongoLocationBatches, MongoShareLinks } from './social.js';

export function mongoRepositories(db: Db, changed: (name: Reported) => void): Repositories {
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
  };
}
