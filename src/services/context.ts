// What every service function receives: plain dependencies, no Fastify types. It is made once per
// running app, whole (plugins/service-context.ts builds its parts; the plugins start and stop
// them), and holds that app's in-process state, so nothing of it lives in module scope.
import type { Config } from '../config.js';
import type { DeliveryRuntime } from '../delivery/runtime.js';
import type { LocationContext } from '../schemas/location-context.js';
import type { TrackRow } from '../schemas/track.js';
import type { ApplicationDoc, LayerDoc, PlaceDoc, TimelineDoc, TriggerDoc, UserDoc } from '../store/documents.js';
import type { AuthLimits } from '../auth/limits.js';
import type { Resolver } from '../delivery/ssrf-guard.js';
import type { Store } from '../store/store.js';
import type { Metrics } from '../metrics/metrics.js';
import { ChangeFeed } from './changes.js';
import { StreamFeed } from './stream-feed.js';
import { StructureLocks } from './structure-lock.js';

export interface ServiceContext {
  store: Store;
  config: Config;
  changes: ChangeFeed;
  /** The service's Prometheus instruments (src/metrics/metrics.ts, GET /metrics). */
  metrics: Metrics;
  /** Epoch ms; injectable so tests can move time. */
  now: () => number;
  /** Delivery's runtime (outbox loop, live streams, pushes), created once with the app. */
  delivery: DeliveryRuntime;
  /** This app's locks between structure changes (services/structure-lock.ts). */
  locks: StructureLocks;
  /** Stored points and group messages, for the streaming API (services/stream-feed.ts). */
  streams: StreamFeed;
  /** The trigger engine's intake (the engine plugin starts and stops it). */
  locationSink: LocationSink;
  /** The engine's dry run (trigger/replay). */
  replayer: Replayer;
  /** Credential-guessing limits and the password hashing queue (auth/limits.ts). */
  authLimits: AuthLimits;
  /** API hits counted in memory until flushed (services/api-hits.ts; the api-hits plugin flushes them). */
  apiHits: ApiHitCounting;
  /** Offline place names (services/geocoder.ts), loaded on first use. */
  geocoder: Geocoding;
  /** The resolver trigger create and update check callback hosts with (the system's; tests give their own). */
  callbackResolver: Resolver;
}

/** API hits per application and UTC day, counted in memory and written now and then. */
export interface ApiHitCounting {
  hit(appId: string, at: number): void;
  /** Hits of `appId` counted here and not written yet, by day. */
  unflushed(appId: string): Map<string, number>;
  flush(store: Store, now: number): Promise<void>;
}

/** Reverse and forward geocoding without a network service (services/geocoder.ts). */
export interface Geocoding {
  /** location/context: the named place a point is in. */
  context(latitude: number, longitude: number): Promise<LocationContext>;
  /** The circle a one-line place name means ("Portland, OR"); undefined when it names no known place. */
  locate(text: string): Promise<{ latitude: number; longitude: number; radius: number; result: string } | undefined>;
  /** Stops a load under way (the app closes). */
  close(): void;
}

/** A location/update body as received (JSON text, or a form body's value) and the request's zone (absent: UTC). */
export type PointsInput = { text: string; timeZone?: string } | { value: unknown; timeZone?: string };

/** The engine's side of ingestion; set by the engine plugin. */
export interface LocationSink {
  /**
   * Reads the points in the engine's shards (a bad body is refused with the 400 it deserves, and
   * nothing of it is applied), evaluates them after the user's earlier ones, and stores the last
   * location (and the history) in the same batch, once the engine took them (a batch refused with a
   * 503 is sent again and stored once: a repeat of a stored point is dropped; the last location
   * tells a restarted engine which points were applied). Resolves when all is durable.
   */
  ingest(app: ApplicationDoc, user: UserDoc, input: PointsInput, now: number): Promise<void>;
}

/** A pair state a replay starts from or ends in (outside is no record). */
export type ReplayPairState = 'inside' | 'dwelling' | 'firedOnce';

/** A replay's track: points already read, or a GPX or GeoJSON text, read in the replay thread. */
export type ReplayTrack = { rows: TrackRow[] } | { gpx: string } | { geojson: string };

/** A replay as the engine runs it (src/engine/replay-pool.ts): the documents, the scope, the track and the page. */
export interface ReplayRun {
  appId: string;
  /** The user the track is replayed as: the real id for a user's replay (firing ids then match theirs). */
  userId: string;
  /** Zone of the daily windows. */
  timezone: string;
  docs: { triggers: TriggerDoc[]; places: PlaceDoc[]; layers: LayerDoc[] };
  /** Keep only the geofences on these layers (a user's own), when given. */
  layerIds?: readonly string[];
  /** Keep only the geofences matching any of these, when any is given. */
  select?: { layerIds: readonly string[]; placeIds: readonly string[]; triggerIds: readonly string[] };
  track: ReplayTrack;
  /** `since` absent: since the track's first point. */
  startStates: ReadonlyArray<{ triggerId: string; placeId: string; state: ReplayPairState; since?: number }>;
  /** The timeline entries to answer: from `offset`, at most `limit`. */
  page: { offset: number; limit: number };
}

/** A pair's timeline entries over a whole replay, by kind. */
export interface ReplayPairCounts {
  triggerId: string;
  placeId: string;
  transition: number;
  fired: number;
  gated: number;
  point: number;
}

export interface ReplayOutput {
  /** The page of the timeline asked for, in the order the engine decided; ids made from the inputs. */
  entries: TimelineDoc[];
  /** Timeline entries of the whole replay, and firings among them. */
  total: number;
  fired: number;
  /** Points replayed, and pairs in the scope. */
  points: number;
  pairs: number;
  /** Every pair with an entry, by trigger then place. */
  counts: ReplayPairCounts[];
  finalStates: Array<{ triggerId: string; placeId: string; state: ReplayPairState; since: number }>;
  /** Per place of the scope, the track's closest approach to it (src/engine/replay-closest.ts). */
  closest: Array<{
    placeId: string; triggerIds: string[]; shape: 'circle' | 'polygon' | 'corridor'; radius: number;
    outsideM: number; centreM: number; marginM: number; point: TrackRow;
  }>;
}

/** The engine's dry run; set by the engine plugin. Stores nothing and moves no live machine. */
export interface Replayer {
  replay(run: ReplayRun): Promise<ReplayOutput>;
}

/** What the parts of a context are built on: the store, configuration, clock and change feed. */
export interface BaseContext {
  store: Store;
  config: Config;
  changes: ChangeFeed;
  now: () => number;
  /** The service's Prometheus instruments (src/metrics/metrics.ts). */
  metrics: Metrics;
}

/** The parts of a context, each made once over its base (plugins/service-context.ts makes the real ones). */
export interface ContextParts {
  delivery(base: BaseContext): DeliveryRuntime;
  engine(base: BaseContext, delivery: DeliveryRuntime): LocationSink & Replayer;
  authLimits: AuthLimits;
  apiHits: ApiHitCounting;
  geocoder: Geocoding;
  callbackResolver: Resolver;
}

/** A context over an open store, with its own change feed and locks, and every part made now. */
export function createServiceContext(deps: { store: Store; config: Config; metrics: Metrics; now?: () => number }, parts: ContextParts): ServiceContext {
  const base: BaseContext = { store: deps.store, config: deps.config, changes: new ChangeFeed(), now: deps.now ?? Date.now, metrics: deps.metrics };
  const delivery = parts.delivery(base);
  const engine = parts.engine(base, delivery);
  return {
    ...base,
    delivery,
    locks: new StructureLocks(),
    streams: new StreamFeed(),
    locationSink: engine,
    replayer: engine,
    authLimits: parts.authLimits,
    apiHits: parts.apiHits,
    geocoder: parts.geocoder,
    callbackResolver: parts.callbackResolver,
  };
}
