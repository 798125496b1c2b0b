// A layer deleted while places and triggers are being created in it: afterwards nothing of that
// layer is left, whichever order the requests ran in. Before, a create that had checked the layer
// just before the delete and inserted just after its cascade survived it, orphaned (found by
// probing the API: 2 of 110 tries). Each create answers 200 (and was then removed with the layer)
// or 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../helpers/api.js';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { startApp, type TestService } from '../helpers/server.js';

describe('deleting a layer while things are created in it', () => {
  let server: TestService;
  let api: Api;
  let app: TestApp;

  beforeAll(async () => {
    server = await startApp();
    api = server.api;
    app = await createApp(api);
  });
  afterAll(() => server.close());

  it('leaves no place or trigger of the deleted layer, over many rounds', async () => {
    const geo = { latitude: 45.5, longitude: -122.6, radius: 100 };
    const token = app.access_token;
    for (let round = 0; round < 40; round++) {
      const layerId = (await api.post('/1/layer/create', { token, json: { name: `race ${round}` } })).body.layer_id as string;
      const placeId = (await api.post('/1/place/create', { token, json: { ...geo, layer_id: layerId } })).body.place_id as string;
      const creates = [
        api.post('/1/place/create', { token, json: { ...geo, layer_id: layerId } }),
        api.post('/1/trigger/create', { token, json: { layer_id: layerId, type: 'message', text: 'on layer' } }),
        api.post('/1/trigger/create', { token, json: { place_id: placeId, type: 'message', text: 'on place' } }),
        api.post('/1/trigger/create', { token, json: { ...geo, place_layer_id: layerId, type: 'message', text: 'inline' } }),
      ];
      // The delete goes out after the creates have started, at a varying moment.
      await new Promise((r) => setTimeout(r, round % 4));
      const deleted = await api.post(`/1/layer/delete/${layerId}`, { token });
      expect(deleted.status).toBe(200);
      for (const res of await Promise.all(creates)) expect([200, 404]).toContain(res.status);
      const store = server.app.ctx.store;
      expect(await store.places.onLayer(app.application_id, layerId)).toEqual([]);
      expect(await store.triggers.list(app.application_id, { layerId })).toEqual([]);
      expect(await store.triggers.onPlaces(app.application_id, [placeId])).toEqual([]);
    }
  });
});
