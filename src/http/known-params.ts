// Query parameters a route does not take are refused, naming them and what the route takes: a
// misspelt or unsupported filter that was ignored would answer with everything, silently.
import type { TObject } from '@sinclair/typebox';
import { apiError } from '../errors.js';

/** Throws 400 invalid_params when `query` holds a parameter `schema` does not declare. */
export function rejectUnknown(query: object, schema: TObject, route: string): void {
  const known = Object.keys(schema.properties);
  const unknown = Object.keys(query).filter((k) => !known.includes(k));
  if (unknown.length === 0) return;
  const names = unknown.map((k) => JSON.stringify(k)).join(', ');
  throw apiError('invalid_params', `${route} does not take ${names}; it takes ${known.join(', ')}`);
}
