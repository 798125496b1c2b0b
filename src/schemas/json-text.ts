// JSON request bodies as text → values, the one way both the HTTP layer and the shard workers
// (which parse location/update bodies off the main thread) read them. Pure: no Fastify, no I/O.

/** An empty body is `{}` (clients send the JSON content type on bodiless POSTs); undefined: not JSON. */
export function parseJsonText(text: string): { value: unknown } | undefined {
  if (text.trim() === '') return { value: {} };
  try {
    // The reviver makes JSON.parse 4x slower (measured: 358 vs 82 µs for a 50-point location
    // batch), so it runs only when such a key can be in the text (literally or \u-escaped). The
    // scan looks for a rare part of each key: location bodies are full of '_' and 'c', which made
    // the whole keys' search 15 µs of a 50-point batch's 60 µs parse (now ~4 µs).
    const suspicious = text.includes('_proto') || text.includes('uctor') || text.includes('\\u');
    return { value: suspicious ? JSON.parse(text, (key, value) => (key === '__proto__' || key === 'constructor' ? undefined : value)) : JSON.parse(text) };
  } catch {
    return undefined;
  }
}

export const NOT_JSON = 'Request body is not valid JSON';

/**
 * A JSON body kept as text for whoever reads it later: location/update bodies are parsed in the
 * shard workers (engine/host.ts), not on the main thread.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
