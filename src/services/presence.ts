// Who is inside which place of a layer right now (layer/users, reference §6.9). The answer belongs
// to the trigger engine, which owns every user-and-geofence state; until the engine is wired in,
// nobody is reported inside. The engine fills this one function and layer/users picks it up.
import type { ServiceContext } from './context.js';

export interface PresenceEntry {
  user_id: string;
  place_id: string;
  /** Epoch ms of the point that put the user inside. */
  since: number;
}

/** Every (user, place) pair of the layer whose user is currently inside the place. */
export async function usersInsideLayer(_ctx: ServiceContext, _appId: string, _layerId: string): Promise<PresenceEntry[]> {
  // TODO(trigger engine): read the "inside" machine states of the layer's places.
  return [];
}
