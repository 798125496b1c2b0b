// A Leaflet map over the tiles the service names (OpenStreetMap's by default; none when the
// operator turned them off: a plain, offline map): places as circles with their hysteresis band
// (dashed), polygons and corridors with theirs (shapes.ts), each with its name as a label; tracks
// as lines whose points say their time and accuracy, each with its accuracy circle, and a picked
// point shown and opened.
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
  /** A point picked elsewhere on the page (a timeline entry): marked, centred and its tooltip opened. */
  picked?: Point | null;
  onPlace?: (p: Place) => void;
  /** What to frame: these points (the track and the places near it); everything drawn when absent. */
  frame?: Array<{ latitude: number; longitude: number; radius?: number }>;
  /** Changes when the view should fit the data again. */
  fitKey?: string;
  /** A click on the map itself (not on a place): where (the what-if draws a draft place there). */
  onMapClick?: (at: { latitude: number; longitude: number }) => void;
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

/** Hides the place labels that would cover one drawn before them (zoomed out, near places crowd). */
function declutter(container: HTMLElement) {
  const kept: DOMRect[] = [];
  for (const label of container.querySelectorAll<HTMLElement>('.place-label span')) {
    label.style.visibility = '';
    const r = label.getBoundingClientRect();
    const clash = kept.some((k) => r.left < k.right && k.left < r.right && r.top < k.bottom && k.top < r.bottom);
    if (clash) label.style.visibility = 'hidden';
    else kept.push(r);
  }
}

/** A place's name on the map at all times, as text (a div icon takes an element). */
function addLabel(g: L.LayerGroup, at: L.LatLng, text: string) {
  const icon = L.divIcon({ html: textElement(text), className: 'place-label', iconSize: [0, 0] });
  L.marker(at, { icon, interactive: false, keyboard: false }).addTo(g);
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The attribution control takes HTML: the operator's text and link go in escaped. */
function attributionHtml(a: Settings['tile_attribution']): string {
  if (!a) return '';
  const text = escapeHtml(a.text);
  return a.url ? `<a href="${escapeHtml(a.url)}" target="_blank" rel="noopener noreferrer">${text}</a>` : text;
}

export const pointTime = (p: Point) => (p.date ? p.date.replace('T', ' ').replace(/(\.\d+)?(Z|[+-]\d\d:\d\d)$/, '') : '');
const pointText = (p: Point) => `${pointTime(p)}${p.horizontal_accuracy ? ` · ±${Math.round(p.horizontal_accuracy)} m` : ''}`.replace(/^ · /, '');

export function MapView({ settings, places, insideIds, tracks = [], current, picked, onPlace, frame, fitKey, onMapClick }: MapProps) {
  const el = useRef<HTMLDivElement>(null);
  // The map is made once: its click handler reads the newest callback.
  const clicked = useRef(onMapClick);
  clicked.current = onMapClick;
  const map = useRef<L.Map | null>(null);
  const layer = useRef<L.LayerGroup | null>(null);
  const pickLayer = useRef<L.LayerGroup | null>(null);
  const fitted = useRef<string | undefined>(undefined);
  /** Strokes measured in metres (shapes.ts), given their pixels again at each zoom. */
  const strokes = useRef<Parameters<typeof fitStrokes>[1]>([]);

  useEffect(() => {
    const m = L.map(el.current!, { zoomControl: true, attributionControl: false, zoomSnap: 0.5 }).setView([0, 0], 2);
    if (settings.tile_url) {
      L.control.attribution({ prefix: false }).addTo(m);
      L.tileLayer(settings.tile_url, { maxZoom: 19, attribution: attributionHtml(settings.tile_attribution) }).addTo(m);
    }
    L.control.scale({ imperial: false }).addTo(m);
    layer.current = L.layerGroup().addTo(m);
    m.on('zoomend', () => {
      fitStrokes(m, strokes.current);
      declutter(el.current!);
    });
    pickLayer.current = L.layerGroup().addTo(m);
    m.on('click', (e: L.LeafletMouseEvent) => clicked.current?.({ latitude: e.latlng.lat, longitude: e.latlng.lng }));
    map.current = m;
    // The pane may change size (a narrow screen's layout, a panel opening): tiles follow it.
    const resize = new ResizeObserver(() => m.invalidateSize());
    resize.observe(el.current!);
    return () => {
      resize.disconnect();
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
    const all = L.latLngBounds([]);
    for (const p of places) {
      const inside = insideIds?.has(p.place_id) ?? false;
      const shaped = drawShape(g, p, leaveMarginM(p.radius, settings), inside);
      if (shaped) {
        // As text: a string given to Leaflet as a tooltip is read as HTML.
        shaped.place.bindTooltip(textElement(placeLabel(p, p.place_id)));
        if (onPlace) shaped.place.on('click', () => onPlace(p));
        strokes.current.push(...shaped.strokes);
        addLabel(g, L.latLng(p.latitude, p.longitude), placeLabel(p, p.place_id));
        all.extend((shaped.place as L.Polyline).getBounds());
        continue;
      }
      const centre = L.latLng(p.latitude, p.longitude);
      L.circle(centre, { radius: p.radius + leaveMarginM(p.radius, settings), color: '#888', weight: 1, dashArray: '4 4', fill: false, interactive: false, className: 'band' }).addTo(g);
      const c = L.circle(centre, { radius: p.radius, color: inside ? '#1a7f37' : '#0969da', weight: 2, fillOpacity: inside ? 0.3 : 0.12, className: `place place-${p.place_id}` })
        .bindTooltip(textElement(placeLabel(p, p.place_id)))
        .addTo(g);
      addLabel(g, centre, placeLabel(p, p.place_id));
      if (onPlace) c.on('click', () => onPlace(p));
      all.extend(c.getBounds());
    }
    for (const t of tracks) {
      const color = t.color ?? '#cf222e';
      const line = t.points.map((pt) => L.latLng(pt.latitude, pt.longitude));
      if (line.length === 0) continue;
      L.polyline(line, { color, weight: 3, opacity: 0.8, className: 'track', interactive: false }).addTo(g);
      t.points.forEach((pt, i) => {
        if (pt.horizontal_accuracy) L.circle(line[i], { radius: pt.horizontal_accuracy, color, weight: 0.5, opacity: 0.4, fillOpacity: 0.05, interactive: false, className: 'accuracy' }).addTo(g);
        L.circleMarker(line[i], { radius: 4, color, weight: 1, fillColor: '#fff', fillOpacity: 1, className: 'track-point' }).bindTooltip(textElement(pointText(pt))).addTo(g);
        all.extend(line[i]);
      });
    }
    if (current) {
      const ll = L.latLng(current.latitude, current.longitude);
      if (current.horizontal_accuracy) L.circle(ll, { radius: current.horizontal_accuracy, color: '#8250df', weight: 1, fillOpacity: 0.08, interactive: false, className: 'accuracy' }).addTo(g);
      L.circleMarker(ll, { radius: 6, color: '#fff', weight: 2, fillColor: '#8250df', fillOpacity: 1, className: 'current' }).bindTooltip(textElement(`last point · ${pointText(current)}`)).addTo(g);
      all.extend(ll);
    }
    const bounds = frame && frame.length > 0 ? L.latLngBounds([]) : all;
    for (const f of frame ?? []) {
      const ll = L.latLng(f.latitude, f.longitude);
      bounds.extend(f.radius ? ll.toBounds(f.radius * 2) : ll);
    }
    if (bounds.isValid() && fitted.current !== (fitKey ?? 'once')) {
      m.fitBounds(bounds.pad(0.15), { maxZoom: 17 });
      fitted.current = fitKey ?? 'once';
    }
    fitStrokes(m, strokes.current);
    declutter(el.current!);
  }, [places, insideIds, tracks, current, fitKey, frame, settings]);

  useEffect(() => {
    const m = map.current;
    const g = pickLayer.current;
    if (!m || !g) return;
    g.clearLayers();
    if (!picked) return;
    const ll = L.latLng(picked.latitude, picked.longitude);
    if (picked.horizontal_accuracy) L.circle(ll, { radius: picked.horizontal_accuracy, color: '#bf8700', weight: 1.5, fillOpacity: 0.12, interactive: false, className: 'picked-accuracy' }).addTo(g);
    const marker = L.circleMarker(ll, { radius: 8, color: '#bf8700', weight: 3, fillColor: '#fff8c5', fillOpacity: 1, className: 'picked' })
      .bindTooltip(textElement(pointText(picked)), { permanent: true, direction: 'top', offset: [0, -8], className: 'picked-label' })
      .addTo(g);
    m.panTo(ll);
    marker.openTooltip();
    // On a phone the map sits above the lists: bring it into view.
    const r = el.current!.getBoundingClientRect();
    if (r.bottom < 0 || r.top > innerHeight) el.current!.scrollIntoView({ block: 'start' });
  }, [picked]);

  return <div class="map" ref={el} />;
}
