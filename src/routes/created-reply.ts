// The de-dup answer shared by layer, place and trigger create (reference §1, §6.5): a repeated key
// answers 409 with the same body a fresh create gives, plus a Location header to the info URL
// (under the service's public base URL, http/public-url.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { publicBaseOf } from '../http/public-url.js';
import type { Created } from '../services/geo-objects.js';

export function createdReply<T>(request: FastifyRequest, reply: FastifyReply, res: Created<T>, infoPath: string): T {
  if (!res.created) void reply.code(409).header('location', `${publicBaseOf(request.server)}/1/${infoPath}`);
  return res.body;
}
