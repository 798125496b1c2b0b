// A Leaflet map without tiles unless the service names a tile URL: places as circles with their
// hysteresis band (dashed), polygons and corridors with theirs (shapes.ts), tracks as lines, points
// as dots. Offline by default.
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { useEffect, useRef } from 'preact/hooks';
import type { Place, Point, Settings } from './api';
import { placeLabel } from './data';
import { leaveMarginM } from './geo';
import { drawShape, fitStrokes } from './shapes';

export interface MapProps {
  settings: Settings;
  places: Place[];
  /** Place ids drawn in the "inside" colour. */
  insideIds?: Set<string>;
  tracks?: Array<{ points: Point[]; color?: string }>;
  /** The point shown as current (the last location, or the replay's cursor). */
  current?: Point | null;
  onPlace?: (p: Place) => void;
  /** Changes when the view should fit the data again. */
  fitKey?: string;
}

/**
 * Leaflet reads a string given as a tooltip or popup as HTML: names come from applications and
 * their users, so they go in as an element holding them as text.
 */
function textElement(text: string): HTMLElement {
  const span = document.createElement('span');
  span.textContent = text;
  return span;
}

export function MapView({ settings, places, insideIds, tracks = [], current, onPlace, fitKey }: MapProps) {
  const el = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const layer = useRef<L.LayerGroup | null>(null);
  const fitted = useRef<string | undefined>(undefined);
  /** Strokes measured in metres (shapes.ts), given their pixels again at each zoom. */
  const strokes = useRef<Parameters<typeof fitStrokes>[1]>([]);

  useEffect(() => {
    const m = L.map(el.current!, { zoomControl: true, attributionControl: Boolean(settings.tile_url), preferCanvas: false }).setView([0, 0], 2);
    if (settings.tile_url) L.tileLayer(settings.tile_url, { maxZoom: 19, attribution: 'tiles: configured source' }).addTo(m);
    L.control.scale({ imperial: false }).addTo(m);
    layer.current = L.layerGroup().addTo(m);
    m.on('zoomend', () => fitStrokes(m, strokes.current));
    map.current = m;
    return () => {
      m.remove();
      map.current = null;
    };
  }, [settings.tile_url]);

  useEffect(() => {
    const m = map.current;
    const g = layer.current;
    if (!m || !g) return;
    g.clearLayers();
    strokes.current = [];
    const bounds = L.latLngBounds([]);
    for (const p of places) {
      const inside = insideIds?.has(p.place_id) ?? false;
      const shaped = drawShape(g, p, leaveMarginM(p.radius, settings), inside);
      if (shaped) {
        shaped.place.bindTooltip(p.name ?? p.place_id);
        if (onPlace) shaped.place.on('click', () => onPlace(p));
        strokes.current.push(...shaped.strokes);
        bounds.extend((shaped.place as L.Polyline).getBounds());
        continue;
      }
      const centre = L.latLng(p.latitude, p.longitude);
      L.circle(centre, { radius: p.radius + leaveMarginM(p.radius, settings), color: '#888', weight: 1, dashArray: '4 4', fill: false, interactive: false, className: 'band' }).addTo(g);
      const c = L.circle(centre, { radius: p.radius, color: inside ? '#1a7f37' : '#0969da', weight: 2, fillOpacity: inside ? 0.3 : 0.12, className: `place place-${p.place_id}` })
        .bindTooltip(textElement(placeLabel(p, p.place_id)))
        .addTo(g);
      if (onPlace) c.on('click', () => onPlace(p));
      bounds.extend(c.getBounds());
    }
    for (const t of tracks) {
      const line = t.points.map((pt) => L.latLng(pt.latitude, pt.longitude));
      if (line.length === 0) continue;
      L.polyline(line, { color: t.color ?? '#cf222e', weight: 3, opacity: 0.8, className: 'track' }).addTo(g);
      for (const ll of line) L.circleMarker(ll, { radius: 2, color: t.color ?? '#cf222e', weight: 1, interactive: false }).addTo(g);
      for (const ll of line) bounds.extend(ll);
    }
    if (current) {
      const ll = L.latLng(current.latitude, current.longitude);
      if (current.horizontal_accuracy) L.circle(ll, { radius: current.horizontal_accuracy, color: '#8250df', weight: 1, fillOpacity: 0.08, interactive: false }).addTo(g);
      L.circleMarker(ll, { radius: 6, color: '#fff', weight: 2, fillColor: '#8250df', fillOpacity: 1, className: 'current' }).addTo(g);
      bounds.extend(ll);
    }
    if (bounds.isValid() && fitted.current !== (fitKey ?? 'once')) {
      m.fitBounds(bounds.pad(0.2), { maxZoom: 17 });
      fitted.current = fitKey ?? 'once';
    }
    fitStrokes(m, strokes.current);
  }, [places, insideIds, tracks, current, fitKey, settings]);

  return <div class="map" ref={el} />;
}
