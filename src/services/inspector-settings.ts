// What the inspector page needs to know of the service that no API method says: the tile URL, if
// any, with its attribution, and the hysteresis constants, so its maps draw each place's band as the engine applies it.
import type { Config } from '../config.js';
import { LEAVE_MARGIN_MIN_M, LEAVE_MARGIN_RATIO, MAX_ACCURACY_MIN_M } from '../geo/hysteresis.js';

export function inspectorSettings(config: Config) {
  return {
    tile_url: config.inspectorTileUrl ?? null,
    tile_attribution: config.inspectorTileAttribution ?? null,
    hysteresis: { leave_margin_min_m: LEAVE_MARGIN_MIN_M, leave_margin_ratio: LEAVE_MARGIN_RATIO, max_accuracy_min_m: MAX_ACCURACY_MIN_M },
  };
}
