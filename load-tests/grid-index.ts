// A uniform grid over place centres, packed once (places do not move during a run): "which places
// could contain a point within R metres". The track planner, the point generator and the oracle ask
// it millions of times. Coordinates live in typed arrays in cell order: reading them from 100,000
// scattered objects (whose double fields are boxed) made each lookup twenty times slower.
import { metresPerDegree } from './geo.js';

export interface GridItem {
  lat: number;
  lng: number;
  radius?: number;
}

export class GridIndex<T extends GridItem> {
  private readonly cellLat: number;
  private readonly cellLng: number;
  private readonly x0: number;
  private readonly y0: number;
  private readonly nx: number;
  private readonly ny: number;
  /** Items of cell c are items[order[start[c]] .. order[start[c + 1] - 1]]. */
  private readonly start: Int32Array;
  private readonly order: Int32Array;
  private readonly lats: Float64Array;
  private readonly lngs: Float64Array;
  private readonly radii: Float64Array;

  /** `cellM`: cell side in metres around latitude `refLat`. */
  constructor(private readonly items: readonly T[], refLat: number, readonly cellM = 500) {
    const m = metresPerDegree(refLat);
    this.cellLat = cellM / m.lat;
    // A little smaller in longitude so that cells never exceed cellM even a few degrees poleward.
    this.cellLng = cellM / m.lng / 1.1;
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (const it of items) {
      const x = Math.floor(it.lng / this.cellLng);
      const y = Math.floor(it.lat / this.cellLat);
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
    if (items.length === 0) minX = maxX = minY = maxY = 0;
    this.x0 = minX;
    this.y0 = minY;
    this.nx = maxX - minX + 1;
    this.ny = maxY - minY + 1;
    const cellOf = items.map((it) => (Math.floor(it.lng / this.cellLng) - this.x0) * this.ny + (Math.floor(it.lat / this.cellLat) - this.y0));
    this.start = new Int32Array(this.nx * this.ny + 1);
    for (const c of cellOf) this.start[c + 1]++;
    for (let c = 0; c < this.nx * this.ny; c++) this.start[c + 1] += this.start[c];
    const fill = this.start.slice(0, -1);
    this.order = new Int32Array(items.length);
    cellOf.forEach((c, i) => {
      this.order[fill[c]++] = i;
    });
    this.lats = new Float64Array(items.length);
    this.lngs = new Float64Array(items.length);
    this.radii = new Float64Array(items.length);
    this.order.forEach((i, k) => {
      this.lats[k] = items[i].lat;
      this.lngs[k] = items[i].lng;
      this.radii[k] = items[i].radius ?? 0;
    });
  }

  /** Calls `visit` with the index, centre and radius of every item that may be within `radiusM`. */
  scan(lat: number, lng: number, radiusM: number, visit: (index: number, lat: number, lng: number, radius: number) => void): void {
    const m = metresPerDegree(lat);
    const dLat = radiusM / m.lat;
    const dLng = radiusM / m.lng;
    const xa = Math.max(0, Math.floor((lng - dLng) / this.cellLng) - this.x0);
    const xb = Math.min(this.nx - 1, Math.floor((lng + dLng) / this.cellLng) - this.x0);
    const ya = Math.max(0, Math.floor((lat - dLat) / this.cellLat) - this.y0);
    const yb = Math.min(this.ny - 1, Math.floor((lat + dLat) / this.cellLat) - this.y0);
    for (let x = xa; x <= xb; x++) {
      const row = x * this.ny;
      for (let k = this.start[row + ya]; k < this.start[row + yb + 1]; k++) visit(this.order[k], this.lats[k], this.lngs[k], this.radii[k]);
    }
  }

  /** Items whose centre may be within `radiusM` of the point (a superset: callers test distance). */
  near(lat: number, lng: number, radiusM: number, out: T[] = []): T[] {
    this.scan(lat, lng, radiusM, (index) => out.push(this.items[index]));
    return out;
  }
}
