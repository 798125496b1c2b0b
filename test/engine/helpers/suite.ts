// One real server and one callback receiver per test file, with delivery tuned to retry fast;
// `world()` gives each test its own application on them so tests can run side by side.
import { afterAll, beforeAll } from 'vitest';
import { startServer, type TestServer, type TestServerOptions } from '../../helpers/server.js';
import { CallbackReceiver } from './receiver.js';
import { World } from './world.js';

export const FAST_DELIVERY = { pollMs: 25, round: { retries: 0 }, backoff: { baseMs: 50, capMs: 200 }, timeoutMs: 2_000 };

export function engineSuite(options: Omit<TestServerOptions, 'delivery'> = {}) {
  let server: TestServer | undefined;
  let receiver: CallbackReceiver | undefined;
  beforeAll(async () => {
    server = await startServer({ ...options, delivery: FAST_DELIVERY });
    receiver = await new CallbackReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await server?.close();
  });
  return {
    get server(): TestServer {
      return server!;
    },
    world: () => World.create(server!.url, receiver!),
  };
}
