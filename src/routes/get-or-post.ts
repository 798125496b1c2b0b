// Action methods (deletes, subscribes, trigger/run) that historical clients call with GET when they
// have no parameters to send: the python client sends a POST without parameters as a GET. These
// answer both. A GET's fields travel in its query string, read with the POST's body schema; no
// automatic HEAD, since a HEAD must not act.
import type { FastifyInstance, FastifySchema, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';

export function getOrPost(app: FastifyInstance, url: string, opts: RouteShorthandOptions & { schema: FastifySchema }, handler: RouteHandlerMethod): void {
  app.post(url, opts, handler);
  const { body, ...schema } = opts.schema;
  const querystring = schema.querystring ?? body;
  // A schema key present but undefined makes Fastify warn at start (FSTWRN001): set it only when there is one.
  app.get(url, { ...opts, exposeHeadRoute: false, schema: querystring === undefined ? schema : { ...schema, querystring } }, handler);
}

/** The request's fields: the query string of a GET, the body of a POST. */
export function actionFields<T>(request: { method: string; query: unknown; body: unknown }): T {
  return (request.method === 'GET' ? request.query : request.body) as T;
}
