// What a floor run needs beside the floor server (load-tests/floor-server.ts): the world written
// where the server reads it, the floor's tokens, and a callback receiver in this process, as the
// service run has one. Shared by the harness (orchestrator.ts) and bench/floor.ts.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { floorToken, floorWorld } from './floor-shard.js';
import { CallbackReceiver } from './receiver.js';
import type { World } from './world.js';

export interface FloorFixture {
  tokens: string[];
  /** The floor server's environment without callbacks, and with them (to `receiver`). */
  bareEnv: Record<string, string>;
  callbackEnv: Record<string, string>;
  /** Arrivals are only kept while the load runs (read after it), like the service run's receiver. */
  receiver: CallbackReceiver;
  close(): Promise<void>;
}

export async function floorFixture(world: World): Promise<FloorFixture> {
  const dir = await mkdtemp(path.join(tmpdir(), 'geotrigger-floor-'));
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const receiver = new CallbackReceiver({ webhookSecret: secret });
  const close = async () => {
    await receiver.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const worldFile = path.join(dir, 'world.json');
    await writeFile(worldFile, JSON.stringify(floorWorld(world)));
    const callbackUrl = await receiver.start();
    const bareEnv = { FLOOR_WORLD: worldFile, FLOOR_FILE: path.join(dir, 'points.jsonl') };
    return {
      tokens: world.users.map((_, i) => floorToken(i)), bareEnv, receiver, close,
      callbackEnv: { ...bareEnv, FLOOR_CALLBACK_URL: callbackUrl, FLOOR_WEBHOOK_SECRET: secret },
    };
  } catch (err) {
    await close();
    throw err;
  }
}
