// The typed repositories the store hands out, one per collection (the interfaces are beside this
// file, the engine's in ../locations.ts, ../machine-states.ts and ../timeline.ts, delivery's in
// ../firings.ts; sqlite/repos.ts
// and mongodb/repos.ts make them for each engine).
import type { AttemptRepo, FiringRepo } from '../firings.js';
import type { LastLocations, PointHistory } from '../locations.js';
import type { MachineStates } from '../machine-states.js';
import type { Timeline } from '../timeline.js';
import type { ApiHitRepo, ApplicationRepo, AuthCodeRepo, TokenRepo, UserRepo } from './accounts.js';
import type { DeviceMessageRepo, MessageRepo, ServiceStartRepo } from './messages.js';
import type { GeonoteRepo, GroupMemberRepo, GroupMessageRepo, GroupRepo, LocationBatchRepo, ShareLinkRepo } from './social.js';
import type { LayerRepo, PlaceRepo, SubscriptionRepo, TriggerRepo } from './structure.js';

export type * from './accounts.js';
export type * from './messages.js';
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
  /** Stored messages: message/list, the live stream's queue, a trigger message's delivery. */
  messages: MessageRepo;
  /** message/device payloads waiting for a live stream. */
  deviceMessages: DeviceMessageRepo;
  /** The engine's recent starts (the dwell clock). */
  serviceStarts: ServiceStartRepo;
}

/**
 * Collections whose changes in-process caches follow (the token cache: auth/token-cache.ts; the
 * streaming rights: services/stream-rights.ts).
 */
export type Reported = 'applications' | 'users' | 'tokens' | 'layers' | 'triggers' | 'groups' | 'group_members';
