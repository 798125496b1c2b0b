// The runtime plugins (src/plugins/) declare what they need: registered without the store, each
// refuses to load and names the missing plugin, instead of failing later on an undefined context.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import authPlugin from '../../src/plugins/auth.js';
import deliveryPlugin from '../../src/plugins/delivery.js';
import enginePlugin from '../../src/plugins/engine.js';
import retentionPlugin from '../../src/plugins/retention.js';

describe('runtime plugins', () => {
  for (const [name, plugin] of [['engine', enginePlugin], ['delivery', deliveryPlugin], ['retention', retentionPlugin], ['auth', authPlugin]] as const) {
    it(`${name} refuses to load without the store plugin`, async () => {
      const app = Fastify({ logger: false });
      await expect(app.register(plugin as never).ready()).rejects.toThrow(/dependency 'store'/);
      await app.close();
    });
  }
});
