// Free-form objects that clients store and read back (`extra` of users, layers, places and
// triggers; a point's `raw` and `client`) keep their keys as sent, with two exceptions, refused
// with a 400 that names the key:
// - a key that starts with "$" or holds a ".": MongoDB takes such keys for operators and paths in
//   updates, so a document holding one could be stored but not updated (this was a 500, and in
//   location/update it failed every request batched with the bad one);
// - nesting deeper than MAX_DEPTH: the stores copy and check documents recursively.
// Pure: shared by the HTTP schemas (an ajv keyword) and the location parser (which runs in the
// engine's shards).

export const MAX_DEPTH = 64;

/**
 * What keeps `value` from being stored as sent, or undefined. The message follows the value's name
 * ("raw has a field name that …"); `name` is also where nested keys are said to be.
 */
export function unstorableField(value: unknown, name: string): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  // Iterative, so a deeply nested body cannot exhaust the stack here; the list of objects still to
  // see is made only when there is one (a point's flat raw and client, checked per point, need none).
  let stack: Array<[unknown, string, number]> | undefined;
  let v: unknown = value;
  let path = name;
  let depth = 1;
  for (;;) {
    if (depth > MAX_DEPTH) return `nests deeper than ${MAX_DEPTH} levels`;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x !== null && typeof x === 'object') (stack ??= []).push([x, `${path}[${i}]`, depth + 1]);
      }
    } else {
      for (const key in v as Record<string, unknown>) {
        if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
        if (key.charCodeAt(0) === 36 /* $ */ || key.includes('.')) {
          return `has a field name that starts with "$" or contains "." (${JSON.stringify(key)}${path === name ? '' : ` in ${path}`})`;
        }
        const x = (v as Record<string, unknown>)[key];
        if (x !== null && typeof x === 'object') (stack ??= []).push([x, `${path}.${key}`, depth + 1]);
      }
    }
    const next = stack?.pop();
    if (!next) return undefined;
    [v, path, depth] = next;
  }
}
