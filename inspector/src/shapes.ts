// Polygon and corridor places on the Leaflet map, with their hysteresis band: the band is a stroke
// along the boundary as wide as the leave margin on each side, so its outer edge lies the margin
// beyond the boundary (its inner half is under the place); a corridor is its line drawn as wide as
// the corridor, with round ends and joins, which is exactly the area within half the width of the
// line. Strokes are in pixels, so their widths follow the zoom (restyle on every zoomend).
import L from 'leaflet';
import type { Place } from './api';

type LonLat = [number, number];
const ll = (p: LonLat) => L.latLng(p[1], p[0]);

/** Metres one screen pixel spans at this latitude and zoom (Web Mercator, 256-pixel tiles). */
export function metresPerPixel(lat: number, zoom: number): number {
  return (40_075_016.686 * Math.cos((lat * Math.PI) / 180)) / 2 ** (zoom + 8);
}

/** A stroke whose width is given in metres on the ground. */
interface GroundStroke {
  layer: L.Path;
  metres: number;
}

export interface ShapeLayers {
  /** The place itself (clickable, with the place's class). */
  place: L.Path;
  strokes: GroundStroke[];
}

/** Draws a shaped place and its band into `g`; undefined for a circle (map.tsx draws those). */
export function drawShape(g: L.LayerGroup, p: Place, margin: number, inside: boolean): ShapeLayers | undefined {
  const geometry = p.geometry;
  if (!geometry) return undefined;
  const colour = inside ? '#1a7f37' : '#0969da';
  const cls = `place place-${p.place_id} shape-${geometry.type === 'LineString' ? 'corridor' : 'polygon'}`;
  if (geometry.type === 'LineString') {
    const line = geometry.coordinates.map(ll);
    const width = p.width ?? 0;
    const band = L.polyline(line, { color: '#888', opacity: 0.35, lineCap: 'round', lineJoin: 'round', interactive: false, className: 'band' }).addTo(g);
    const place = L.polyline(line, { color: colour, opacity: inside ? 0.5 : 0.3, lineCap: 'round', lineJoin: 'round', className: cls }).addTo(g);
    L.polyline(line, { color: colour, weight: 1, dashArray: '2 4', interactive: false }).addTo(g);
    return { place, strokes: [{ layer: band, metres: width + 2 * margin }, { layer: place, metres: width }] };
  }
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  const rings = polygons.map((rs) => rs.map((r) => r.map(ll)));
  const band = L.polygon(rings, { color: '#888', opacity: 0.35, fill: false, lineJoin: 'round', interactive: false, className: 'band' }).addTo(g);
  const place = L.polygon(rings, { color: colour, weight: 2, fillOpacity: inside ? 0.3 : 0.12, className: cls }).addTo(g);
  return { place, strokes: [{ layer: band, metres: 2 * margin }] };
}

/** Gives every ground stroke its width in pixels at the map's zoom. */
export function fitStrokes(map: L.Map, strokes: GroundStroke[]): void {
  const mpp = metresPerPixel(map.getCenter().lat, map.getZoom());
  for (const s of strokes) s.layer.setStyle({ weight: Math.max(1, s.metres / mpp) });
}
