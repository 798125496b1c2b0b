// Every route the running server has, as `METHOD /path` with Fastify's `:param` syntax: from the
// router itself (printRoutes, which also shows routes hidden from the docs) and from the OpenAPI
// document at /docs/json, so a route missing from either source is still found.
import type { FastifyInstance } from 'fastify';

/** Parses `printRoutes({ commonPrefix: false })`: a tree whose child lines extend their parent's path. */
export function routerRoutes(app: FastifyInstance): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    const full = (depth > 0 ? stack[depth - 1] : '') + m[2];
    stack[depth] = full;
    stack.length = depth + 1;
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
      if (method !== 'HEAD') out.push(`${method} ${full}`);
    }
  }
  return out;
}

export function openApiRoutes(doc: { paths: Record<string, Record<string, unknown>> }): string[] {
  const out: string[] = [];
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const method of Object.keys(methods)) out.push(`${method.toUpperCase()} ${p.replace(/\{([^}]+)\}/g, ':$1')}`);
  }
  return out;
}
