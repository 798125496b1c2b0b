// The runtime plugins (src/plugins/) declare what they need: registered without the store, each
// refuses to load and names the missing plugin, instead of failing later on an undefined context.
// The service context they run the parts of is made whole by the store plugin.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import metricsPlugin from '../../src/plugins/metrics.js';
import storePlugin from '../../src/plugins/store.js';
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

  it('store refuses to load without the metrics plugin, which its parts count into', async () => {
    const app = Fastify({ logger: false });
    await expect(app.register(storePlugin, { config: loadConfig({ DATA_DIR: 'unused', LOG_LEVEL: 'silent' }) }).ready()).rejects.toThrow(/dependency 'metrics'/);
    await app.close();
  });
});

describe('the service context', () => {
  const PARTS = ['store', 'config', 'changes', 'now', 'metrics', 'delivery', 'locks', 'streams', 'locationSink', 'replayer', 'authLimits', 'apiHits', 'geocoder', 'callbackResolver'] as const;

  it('is whole once the store plugin has loaded, before any plugin that runs its parts', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'geotrigger-ctx-'));
    const app = Fastify({ logger: false });
    try {
      await app.register(metricsPlugin);
      await app.register(storePlugin, { config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }) });
      await app.ready();
      for (const part of PARTS) expect(app.ctx[part], part).toBeDefined();
      expect(app.ctx.metrics).toBe(app.metrics);
      expect(app.ctx.locationSink).toBe(app.engine);
      expect(app.ctx.replayer).toBe(app.engine);
    } finally {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps the parts it was made with once every plugin of the app has loaded', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'geotrigger-ctx-'));
    const app = await buildApp({ config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), logger: false, engine: { inProcess: true } });
    try {
      const made = { ...app.ctx };
      await app.ready();
      expect(Object.keys(app.ctx).sort()).toEqual(Object.keys(made).sort());
      for (const part of PARTS) expect(app.ctx[part], part).toBe(made[part]);
    } finally {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
