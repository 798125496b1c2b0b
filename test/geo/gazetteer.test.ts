// The gazetteer's rules over a handful of places (the real data set is exercised by
// test/routes/geocoding.test.ts).
import { describe, expect, it } from 'vitest';
import { cityRadiusM, Gazetteer, normalizeName, type GazetteerRecord } from '../../src/geo/gazetteer.js';

const places: GazetteerRecord[] = [
  { name: 'Bigcity', country: 'US', admin1: 'NE', population: 640_000, latitude: 40, longitude: -100 },
  { name: 'Suburb', country: 'US', admin1: 'NE', population: 20_000, latitude: 40, longitude: -99.86 },
  { name: 'Portland', country: 'US', admin1: 'OR', population: 650_000, latitude: 45.52, longitude: -122.68 },
  { name: 'Portland', country: 'US', admin1: 'ME', population: 68_000, latitude: 43.66, longitude: -70.25 },
  { name: 'Portland', country: 'AU', admin1: '07', population: 9_000, latitude: -38.35, longitude: 141.6 },
  { name: 'Saint-Étienne', country: 'FR', admin1: '84', population: 170_000, latitude: 45.43, longitude: 4.39 },
  { name: 'Washington, D.C.', country: 'US', admin1: 'DC', population: 690_000, latitude: 38.9, longitude: -77.04 },
];
const names = {
  admin1: new Map([['US.OR', 'Oregon'], ['US.ME', 'Maine'], ['FR.84', 'Auvergne-Rhône-Alpes']]),
  country: (code: string) => ({ US: 'United States', AU: 'Australia', FR: 'France' })[code],
};
const g = new Gazetteer(places, names);

describe('reverse', () => {
  it('picks the place whose extent the point is deepest in, not merely the nearest centre', () => {
    // 1 km from Suburb's centre (its extent about 1.4 km), 11 km from Bigcity's (about 8 km).
    expect(g.reverse(40, -99.87)?.place.name).toBe('Suburb');
    // Nearer Suburb than Bigcity's centre, but well inside Bigcity's extent.
    expect(g.reverse(40, -99.925)?.place.name).toBe('Bigcity');
  });

  it('beyond the locality search, region and country only; nothing near at all: undefined', () => {
    const far = g.reverse(44.5, -122.7);
    expect(far).toMatchObject({ locality: false, place: { country: 'US', admin1: 'OR', regionName: 'Oregon' } });
    expect(g.reverse(0, -150)).toBeUndefined();
    expect(new Gazetteer([], names).reverse(45.5, -122.7)).toBeUndefined();
  });
});

describe('search', () => {
  it('a bare name is its most populous place; qualifiers narrow by region or country, code or name', () => {
    expect(g.search('Portland')).toMatchObject({ admin1: 'OR' });
    expect(g.search('portland, me')).toMatchObject({ admin1: 'ME', regionName: 'Maine' });
    expect(g.search('Portland, Maine, USA')).toMatchObject({ admin1: 'ME' });
    expect(g.search('Portland, Australia')).toMatchObject({ country: 'AU' });
    expect(g.search('Portland, AU')).toMatchObject({ country: 'AU' });
    expect(g.search('Portland, France')).toBeUndefined();
    expect(g.search('Nowhere')).toBeUndefined();
    expect(g.search(' , ')).toBeUndefined();
  });

  it('ignores case, accents and dots; a name with a comma is tried whole first', () => {
    expect(g.search('SAINT-ETIENNE')).toMatchObject({ name: 'Saint-Étienne' });
    expect(g.search('Saint Etienne, Auvergne-Rhône-Alpes')).toMatchObject({ name: 'Saint-Étienne' });
    expect(g.search('washington, dc')).toMatchObject({ admin1: 'DC' });
    expect(normalizeName("St. John's")).toBe('st johns');
  });
});

describe('cityRadiusM', () => {
  it('grows with population between 1 km and 20 km', () => {
    expect(cityRadiusM(0)).toBe(1_000);
    expect(cityRadiusM(640_000)).toBe(8_000);
    expect(cityRadiusM(40_000_000)).toBe(20_000);
  });
});
