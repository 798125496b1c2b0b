// The de-dup answer shared by layer, place and trigger create (reference §1, §6.5): a repeated key
// answers 409 with the same body a fresh create gives, plus a Location header to the info URL.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Created } from '../services/geo-objects.js';

export function createdReply<T>(request: FastifyRequest, reply: FastifyReply, res: Created<T>, infoPath: string): T {
  if (!res.created) void reply.code(409).header('location', `${request.protocol}://${request.host}/1/${infoPath}`);
  return res.body;
}
