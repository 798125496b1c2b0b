// The types of the callback payload (reference §5) and of what it is built from; payload.ts builds
// it, payload-text.ts serialises it for the outbox.
import type { ApplicationDoc, Extra, LayerDoc, PlaceDoc, TriggerDoc, UserDoc } from '../store/documents.js';

export type { FiringPoint } from '../schemas/firing.js';
import type { FiringPoint } from '../schemas/firing.js';

export interface LatLng {
  latitude: number;
  longitude: number;
}

export interface LayerBounds {
  center: LatLng;
  map: string;
  ne: LatLng;
  sw: LatLng;
  radius: number;
}

export interface CallbackPayload {
  layer: {
    bounds: LayerBounds | false;
    description: string;
    extra: Extra;
    icon: string;
    layer_id: string;
    name: string;
    public: number;
    public_userlist: number;
    settings: false;
    subscription: false;
    trigger_rate_limit: number;
    type: string;
    user_id: string;
  };
  place: {
    active: number;
    description: string;
    display_name: string;
    extra: Extra;
    latitude: number;
    longitude: number;
    radius: number;
    map: string;
    name: string;
    place_id: string;
    time_from: string;
    time_to: string;
  };
  trigger: {
    callback_url?: string;
    text?: string;
    url?: string;
    extra: Extra;
    one_time: string;
    place_id?: string;
    layer_id?: string;
    trigger_after: string;
    trigger_id: string;
    trigger_on: string;
    type: string;
  };
  triggered_delay: string;
  triggered_on: 'enter' | 'leave';
  user: {
    bio: string;
    devices: { apns_dev: string[]; apns_live: string[]; c2dm: string[]; gcm: string[] };
    display_name: string;
    extra: Extra;
    has_custom_username: string;
    has_push_token: string;
    is_anonymous: string;
    name: string;
    profile_image: string;
    public_geonote_email: string;
    public_geonotes: string;
    public_location: string;
    timezone: string;
    timezone_offset: string;
    twitter: string;
    user_id: string;
    username: string;
    website: string;
  };
  event_id: string;
  date: string;
  date_ts: number;
  location: LocationRecord;
}

export interface LocationRecord {
  date: string;
  date_ts: number;
  location: {
    type: 'point';
    position: {
      latitude: number;
      longitude: number;
      speed: number | null;
      altitude: number | null;
      heading: number | null;
      horizontal_accuracy: number | null;
      vertical_accuracy: number | null;
    };
  };
  raw: Record<string, unknown> | null;
  uuid?: string;
}


export interface PayloadInput {
  app: Pick<ApplicationDoc, '_id'>;
  user: UserDoc;
  trigger: TriggerDoc;
  place: PlaceDoc;
  layer: LayerDoc;
  /** Bounds of the layer (layerBounds of its places), computed by the caller who can cache them. */
  bounds: LayerBounds | false;
  event_id: string;
  triggered_on: 'enter' | 'leave';
  /** Seconds of dwell before the firing (the trigger's trigger_after for a dwell trigger). */
  delay_s: number;
  /** Epoch ms of the firing. */
  at: number;
  location: FiringPoint;
}

