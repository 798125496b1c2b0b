// The baseline: a bare Fastify server with one JSON route shaped like location/update, run as its
// own process and driven by the same load generator, so the report can say how the service's
// throughput compares with what Fastify alone reaches on this machine. It parses the body (the
// service must, too) and answers like the service does; it stores and evaluates nothing.
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 0);
// Same body limit as the service (src/app.ts BODY_LIMIT).
const app = Fastify({ logger: false, bodyLimit: 2 * 1024 * 1024 });

app.get('/health', async () => ({ status: 'ok' }));
app.post('/1/location/update', async (request, reply) => {
  if (!Array.isArray(request.body)) {
    return reply.code(400).send({ error_code: 400, error: 'invalid_input', error_description: 'Input data must be an array of data points' });
  }
  return { response: 'ok' };
});

const close = async () => {
  await app.close();
  process.exit(0);
};
process.once('SIGTERM', () => void close());
process.once('SIGINT', () => void close());

await app.listen({ port, host: '127.0.0.1' });
