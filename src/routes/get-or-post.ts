// Action methods (deletes, subscribes, trigger/run) that historical clients call with GET when they
// have no parameters to send: the python client sends a POST without parameters as a GET. These
// answer both. A GET's fields travel in its query string, read with the POST's body schema; no
// automatic HEAD, since a HEAD must not act.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault, FastifySchema, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault, RouteGenericInterface,
  RouteHandlerMethod, RouteShorthandOptions,
} from 'fastify';
import type { RouteApp } from './route-app.js';

/** A handler whose request is typed by the route's schema `S`. */
type Handler<S extends FastifySchema> = RouteHandlerMethod<
  RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, RouteGenericInterface, ContextConfigDefault, S, TypeBoxTypeProvider
>;

export function getOrPost<S extends FastifySchema>(app: RouteApp, url: string, opts: RouteShorthandOptions & { schema: S }, handler: Handler<S>): void {
  app.post(url, opts, handler);
  const { body, ...schema } = opts.schema;
  const querystring = schema.querystring ?? body;
  // A schema key present but undefined makes Fastify warn at start (FSTWRN001): set it only when there is one.
  // The GET's request carries the body's fields in its query (actionFields reads them), not as its type says.
  app.get(url, { ...opts, exposeHeadRoute: false, schema: querystring === undefined ? schema : { ...schema, querystring } }, handler as RouteHandlerMethod);
}

/** The request's fields, typed by the body schema: the query string of a GET, the body of a POST. */
export function actionFields<B>(request: { method: string; query: unknown; body: B }): B {
  return (request.method === 'GET' ? request.query : request.body) as B;
}
