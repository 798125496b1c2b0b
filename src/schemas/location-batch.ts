// The location/update body as the OpenAPI document shows it (reference §6.11). Not a validation
// schema: the body is read by location-points.ts, off the main thread and leniently (real clients
// send Unix-second strings, no `client`, `raw: null`), and each bad point is named by its index.
import { Type } from '@sinclair/typebox';
import { DECIMAL } from './decimal.js';

const Num = (description: string) => Type.Union([Type.Number(), Type.String({ pattern: DECIMAL.source })], { description });

export const LocationPointIn = Type.Object({
  date: Type.Union([Type.String(), Type.Number()], {
    description: 'When the device took the point: ISO-8601 (2010-07-23T09:19:38-07:00), Unix seconds (a number or digits), or ' +
      '"YYYY-MM-DD hh:mm:ss -0700". Without an offset it is read in the request\'s zone. At most a day in the future.',
  }),
  location: Type.Object({
    type: Type.Optional(Type.Literal('point', { description: 'the only type there is' })),
    position: Type.Object({
      latitude: Num('degrees, -90 to 90'),
      longitude: Num('degrees, -180 to 180'),
      horizontal_accuracy: Type.Optional(Num('metres; 0 when absent')),
      vertical_accuracy: Type.Optional(Num('metres')),
      speed: Type.Optional(Num('km/h')),
      altitude: Type.Optional(Num('metres')),
      heading: Type.Optional(Num('degrees')),
    }),
  }),
  raw: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description: 'free key/value data (battery, distance_filter…), returned as sent by location/last and location/history',
  })),
  client: Type.Optional(Type.Object({
    name: Type.Optional(Type.String()), version: Type.Optional(Type.String()), platform: Type.Optional(Type.String()), hardware: Type.Optional(Type.String()),
  }, { description: 'the sending app' })),
  uuid: Type.Optional(Type.String({ maxLength: 64, description: 'the point\'s id; generated when absent' })),
}, { description: 'One point (reference §6.11)' });

export const LocationBatch = Type.Array(LocationPointIn, {
  minItems: 1,
  maxItems: 1000,
  description: 'A JSON array of points, oldest or newest first; a single point is still an array. Every point must be valid, ' +
    'else the whole batch is refused (400 invalid_input, naming each bad point by index).',
  examples: [[{
    date: '2010-07-23T09:19:38-07:00',
    location: { type: 'point', position: { latitude: 45.445793867111, longitude: -122.64261245728, speed: 10, altitude: 0, horizontal_accuracy: 24, vertical_accuracy: 0 } },
    raw: { battery: 86 },
    client: { name: 'Geoloqi', version: '0.1', platform: 'iPhone OS 4', hardware: 'iPhone2,1' },
  }]],
});
