// The typed repositories the store hands out, one per collection (the interfaces are beside this
// file; sqlite/repos.ts and mongodb/repos.ts make them for each engine).
import type { ApiHitRepo, ApplicationRepo, AuthCodeRepo, TokenRepo, UserRepo } from './accounts.js';
import type { GeonoteRepo, GroupMemberRepo, GroupMessageRepo, GroupRepo, LocationBatchRepo, ShareLinkRepo } from './social.js';
import type { LayerRepo, PlaceRepo, SubscriptionRepo, TriggerRepo } from './structure.js';

export type * from './accounts.js';
export type * from './social.js';
export type * from './structure.js';
export { memberId } from './social.js';
export { subscriptionId } from './structure.js';

export interface Repositories {
  applications: ApplicationRepo;
  tokens: TokenRepo;
  authCodes: AuthCodeRepo;
  apiHits: ApiHitRepo;
  users: UserRepo;
  layers: LayerRepo;
  places: PlaceRepo;
  triggers: TriggerRepo;
  subscriptions: SubscriptionRepo;
  geonotes: GeonoteRepo;
  shareLinks: ShareLinkRepo;
  locationBatches: LocationBatchRepo;
  groups: GroupRepo;
  groupMembers: GroupMemberRepo;
  groupMessages: GroupMessageRepo;
}

/**
 * Collections whose changes in-process caches follow (the token cache: auth/token-cache.ts; the
 * streaming rights: services/stream-rights.ts).
 */
export type Reported = 'applications' | 'users' | 'tokens' | 'layers' | 'triggers' | 'groups' | 'group_members';
