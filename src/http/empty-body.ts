// A POST without a body (`curl -X POST -u key:`, trigger/run with nothing to say, a delete) reaches
// the route with no body at all, which an object body schema refuses as "body must be object".
// Routes whose body is an object read such a request as the empty object instead, so what is
// missing is named by the schema (missing_input) and routes whose fields are all optional work.
import type { FastifyRequest, RouteOptions } from 'fastify';

type JsonSchema = { type?: unknown };

async function emptyBodyAsObject(request: FastifyRequest) {
  if (request.body === undefined || request.body === null) request.body = {};
}

/** onRoute hook: gives every route with an object body schema the hook above, first of its preValidation hooks. */
export function readEmptyBodyAsObject(route: RouteOptions): void {
  const body = (route.schema as { body?: JsonSchema } | undefined)?.body;
  if (body?.type !== 'object') return;
  route.preValidation = [emptyBodyAsObject, ...[route.preValidation ?? []].flat()];
}
