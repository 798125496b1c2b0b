// Stored documents of the other method groups: geonotes, share links, history batches, groups,
// message/device payloads and API hit counters.
import type { Extra } from './documents.js';

/**
 * A geonote (reference §4.2): a one-time message trigger on a place of the user's own "Geonotes"
 * layer, which only that user is subscribed to, so the engine fires it for them alone.
 */
export interface GeonoteDoc {
  _id: string;
  app_id: string;
  user_id: string;
  trigger_id: string;
  /** The place the trigger is on (on the user's Geonotes layer). */
  place_id: string;
  /** The place the note was left at when `place_id` named an existing one (copied onto the layer). */
  origin_place_id?: string;
  text: string;
  /** `[me]` or the sender's email. */
  from: string;
  from_name?: string;
  date_created: number;
  /** When its message was found delivered; stamped on the first read after that. */
  date_triggered?: number;
}

/** A share link (reference §4.13); `_id` is the 7-character token. */
export interface ShareLinkDoc {
  _id: string;
  app_id: string;
  user_id: string;
  description: string;
  share_with: string;
  date_from?: number;
  date_to?: number;
  time_from?: string;
  time_to?: string;
  status: 'active' | 'inactive' | 'expired';
  created_at: number;
}

/** The points one location/history?batch=true answered, for location/delete_batch/:id. */
export interface LocationBatchDoc {
  /** 40 hex characters, as the reference's example. */
  _id: string;
  app_id: string;
  user_id: string;
  point_ids: string[];
  created_at: number;
  /** When location/delete_batch removed them; a second call answers 304. */
  deleted_at?: number;
}

// Groups (reference §4.7): real-time groups of users, their members and their messages.

export type GroupVisibility = 'public' | 'open' | 'invite';
export type GroupPublishAccess = 'open' | 'closed';

export interface GroupDoc {
  /** The group token: a capability (open groups are readable by whoever has it), so long and random. */
  _id: string;
  app_id: string;
  /** The user who created it with their user token; absent when the application did. */
  owner_id?: string;
  title: string;
  description: string;
  visibility: GroupVisibility;
  publish_access: GroupPublishAccess;
  date_created: number;
}

/** `publishing` members' locations and messages go to the group; `subscribed` ones only watch it. */
export type GroupMembership = 'publishing' | 'subscribed';

export interface GroupMemberDoc {
  /** `${group token}:${user_id}` */
  _id: string;
  app_id: string;
  group_token: string;
  user_id: string;
  membership: GroupMembership;
  date_joined: number;
}

export interface GroupMessageDoc {
  _id: string;
  app_id: string;
  group_token: string;
  /** The user who posted it with their token; absent when the application did. */
  user_id?: string;
  /** Every field posted but `push` and the credentials. */
  message: Extra;
  date: number;
}

/** A message/device payload (reference §4.10): kept for the user's live stream until taken or `expires_at`. */
export interface DeviceMessageDoc {
  _id: string;
  app_id: string;
  user_id: string;
  layer_id?: string;
  data: Record<string, unknown>;
  date: number;
  expires_at: number;
}

/** One process's API hits of one application on one UTC day; `_id` = `${app_id}:${day}:${node}`. */
export interface ApiHitsDoc {
  _id: string;
  app_id: string;
  /** `YYYY-mm-dd`, UTC. */
  day: string;
  hits: number;
}
