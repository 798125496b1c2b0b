// JSON request bodies as text → values, the one way both the HTTP layer and the shard workers
// (which parse location/update bodies off the main thread) read them. Pure: no Fastify, no I/O.

/**
 * The text without a leading byte order mark: some clients (.NET, Windows tools) start their UTF-8
 * bodies with one, which RFC 8259 §8.1 lets a parser ignore and JSON.parse (like qs) does not.
 */
export const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** Lone surrogates arrive only as \u escapes (a UTF-8 body cannot hold one): bodies without such an escape skip the look. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A JSON body's value; `{}` for an empty body (clients send the JSON content type on bodiless POSTs);
 * an error: not JSON, or text holding a lone UTF-16 surrogate, which no UTF-8 (stores, replies,
 * callbacks) can carry: it would come back as U+FFFD, another text than the one sent.
 */
export function parseJsonText(body: string): { value: unknown } | { error: string; code: 'invalid_request' | 'invalid_input' } {
  const text = withoutBom(body);
  if (text.trim() === '') return { value: {} };
  try {
    // The reviver makes JSON.parse 4x slower (measured: 358 vs 82 µs for a 50-point location
    // batch), so it runs only when such a key can be in the text (literally or \u-escaped). The
    // scan looks for a rare part of each key: location bodies are full of '_' and 'c', which made
    // the whole keys' search 15 µs of a 50-point batch's 60 µs parse (now ~4 µs).
    const suspicious = text.includes('_proto') || text.includes('uctor') || text.includes('\\u');
    if (!suspicious) return { value: JSON.parse(text) };
    const surrogates = SURROGATE_ESCAPE.test(text);
    let lone: string | undefined;
    const value: unknown = JSON.parse(text, (key, v) => {
      if (surrogates && lone === undefined) {
        if (LONE_SURROGATE.test(key)) lone = 'a field name';
        else if (typeof v === 'string' && LONE_SURROGATE.test(v)) lone = key === '' ? 'the body' : `the field "${key}"`;
      }
      return key === '__proto__' || key === 'constructor' ? undefined : v;
    });
    if (lone !== undefined) return { error: notWellFormed(lone), code: 'invalid_input' };
    return { value };
  } catch {
    return { error: NOT_JSON, code: 'invalid_request' };
  }
}

const notWellFormed = (where: string) => `Text in ${where} is not well-formed Unicode: it holds half of a UTF-16 surrogate pair (\\uD800-\\uDFFF) alone`;

export const NOT_JSON = 'Request body is not valid JSON';

/**
 * A JSON body kept as text for whoever reads it later: location/update bodies are parsed in the
 * shard workers (engine/host.ts), not on the main thread.
 */
export class JsonText {
  constructor(readonly text: string) {}
}
