// The geocoder's one load: the bundled data is decoded in a worker thread (services/gazetteer-thread.ts)
// once, however many lookups arrive while it runs; a load that fails is a 503 and the next lookup
// tries again.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { gazetteerData, type GazetteerData } from '../../src/geo/gazetteer.js';
import { loadGazetteerData } from '../../src/services/gazetteer-thread.js';
import { Geocoder } from '../../src/services/geocoder.js';
import { expectErrorShape } from '../helpers/fixtures.js';

const small = () => gazetteerData(
  [{ name: 'Portland', country: 'US', admin1: 'OR', population: 650_000, latitude: 45.52, longitude: -122.68 }],
  { admin1: new Map([['US.OR', 'Oregon']]), country: (code) => (code === 'US' ? 'United States' : undefined) },
);

/** How a lookup failed: its error in the API's shape. */
const failure = async (lookup: Promise<unknown>) => {
  const err = await lookup.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return (err as ApiError).body();
};

describe('Geocoder', () => {
  it('lookups that arrive before the data is read all get answers from one load in a thread', async () => {
    let loads = 0;
    const geocoder = new Geocoder((signal) => {
      loads++;
      return loadGazetteerData(signal);
    });
    const [sf, paris, portland, springfield] = await Promise.all([
      geocoder.context(37.7793, -122.4193),
      geocoder.context(48.8566, 2.3522),
      geocoder.locate('Portland, OR'),
      geocoder.locate('Springfield, IL'),
    ]);
    expect(sf).toMatchObject({ locality_name: 'San Francisco', full_name: 'San Francisco, CA' });
    expect(paris).toMatchObject({ locality_name: 'Paris', region_name: 'Île-de-France', country_name: 'France' });
    expect(portland).toMatchObject({ result: 'Portland, Oregon, United States' });
    expect(springfield).toMatchObject({ result: 'Springfield, Illinois, United States' });
    expect(await geocoder.context(45.5231, -122.6765)).toMatchObject({ locality_name: 'Portland', region_name: 'OR' });
    expect(loads).toBe(1);
  });

  it('a load that fails fails its lookups with a 503; the next lookup loads again', async () => {
    let loads = 0;
    const geocoder = new Geocoder(async (): Promise<GazetteerData> => {
      if (++loads === 1) throw new Error('the data thread exited with code 1');
      return small();
    });
    const failed = await Promise.all([failure(geocoder.context(45.52, -122.68)), failure(geocoder.locate('Portland'))]);
    for (const body of failed) {
      expectErrorShape(body, 503);
      expect(body.error_description).not.toContain('exited');
    }
    expect(geocoder.loaded).toBe(false);
    expect(await geocoder.locate('Portland, Oregon')).toMatchObject({ latitude: 45.52, longitude: -122.68 });
    expect(loads).toBe(2);
  });

  it('closing it stops a load under way: the waiting lookup fails instead of hanging', async () => {
    const geocoder = new Geocoder(loadGazetteerData);
    const lookup = geocoder.context(45.52, -122.68);
    geocoder.close();
    expectErrorShape(await failure(lookup), 503);
  });
});
