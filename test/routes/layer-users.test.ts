// The layer/users shape (reference §6.9) with people inside: presence comes from the trigger engine,
// so the shaping is exercised here directly with presence entries, over real store documents.
import { describe, expect, it } from 'vitest';
import { layerUsersView } from '../../src/services/layer-users.js';
import type { PlaceDoc, UserDoc } from '../../src/store/documents.js';

const place = (id: string, name: string): PlaceDoc => ({
  _id: id, app_id: 'app', layer_id: 'L', name, description: '', latitude: 45.5, longitude: -122.6, radius: 100, extra: { id }, created_at: 0,
});

const user = (id: string, fields: Partial<UserDoc> = {}): UserDoc => ({
  _id: id, app_id: 'app', username: `u${id}`, uniq_username: `app:u${id}`, name: 'Name', display_name: 'Display', bio: 'bio', website: '',
  timezone: 'America/Los_Angeles', profile_image: '', phone: '555', twitter: '', facebook: '', email: 'x@example.com',
  is_anonymous: 0, has_custom_username: 1, public_location: 1, public_geonotes: 0, public_geonote_email: 0, extra: { team: 'red' },
  devices: { apns_dev: [], apns_live: ['tok'], c2dm: [], gcm: [] }, created_at: 0, ...fields,
});

describe('layerUsersView', () => {
  const at = Date.UTC(2012, 4, 4, 17, 45, 9);
  const now = Date.UTC(2012, 6, 1);

  it('lists each inside user once with the places they are in, and each place with who is inside', () => {
    const view = layerUsersView(
      [place('p1', 'One'), place('p2', 'Two'), place('p3', 'Empty')],
      [user('u1', { twitter: 'aaronpk' }), user('u2')],
      [
        { user_id: 'u1', place_id: 'p2', since: at + 1000 },
        { user_id: 'u1', place_id: 'p1', since: at },
        { user_id: 'u2', place_id: 'p1', since: at + 2000 },
      ],
      now,
    );
    expect(Object.keys(view.places).sort()).toEqual(['p1', 'p2', 'p3']);
    expect(view.places.p3.users_inside).toEqual([]);
    expect(view.places.p1.users_inside).toEqual([
      { user_id: 'u1', date: '2012-05-04T17:45:09+00:00', date_ts: 1336153509 },
      { user_id: 'u2', date: '2012-05-04T17:45:11+00:00', date_ts: 1336153511 },
    ]);
    expect(view.users.u1.inside).toEqual([
      { place_id: 'p1', date: '2012-05-04T17:45:09+00:00', date_ts: 1336153509 },
      { place_id: 'p2', date: '2012-05-04T17:45:10+00:00', date_ts: 1336153510 },
    ]);
    expect(view.users.u1).toMatchObject({
      user_id: 'u1', username: 'uu1', name: 'Name', display_name: 'Display', bio: 'bio', timezone: 'America/Los_Angeles',
      timezone_offset: '-0700', twitter: 'aaronpk', is_anonymous: 0, has_custom_username: 1, has_push_token: 1, public_location: 1, extra: { team: 'red' },
    });
    // §6.9 lists a public profile: no email, phone or device tokens; twitter is false when unset.
    expect(view.users.u1).not.toHaveProperty('email');
    expect(view.users.u1).not.toHaveProperty('phone');
    expect(view.users.u1).not.toHaveProperty('devices');
    expect(view.users.u2.twitter).toBe(false);
  });

  it('drops presence naming a user or place it does not know, so the two maps agree', () => {
    const view = layerUsersView([place('p1', 'One')], [user('u1')], [
      { user_id: 'ghost', place_id: 'p1', since: at },
      { user_id: 'u1', place_id: 'gone', since: at },
    ], now);
    expect(view.users).toEqual({});
    expect(view.places.p1.users_inside).toEqual([]);
  });
});
