// Stored documents for the repository tests, complete and valid, with what a test needs changed.
import type { ApplicationDoc, UserDoc } from '../../src/store/documents.js';
import { newId } from '../../src/store/ids.js';
import { uniqUsername } from '../../src/store/unique-keys.js';

export function appDoc(over: Partial<ApplicationDoc> = {}): ApplicationDoc {
  const id = newId();
  return {
    _id: id, name: `app ${id}`, client_id: `client-${id}`, client_secret_hash: 'f'.repeat(64), webhook_secret: 'whsec_x',
    default_layer_id: newId(), store_history: false, created_at: 1_000, ...over,
  };
}

export function userDoc(appId: string, username: string, over: Partial<UserDoc> = {}): UserDoc {
  return {
    _id: newId(), app_id: appId, username, uniq_username: uniqUsername(appId, username),
    name: '', display_name: username, bio: '', website: '', timezone: 'UTC', profile_image: '', phone: '', twitter: '', facebook: '',
    is_anonymous: 0, has_custom_username: 1, public_location: 0, public_geonotes: 0, public_geonote_email: 0,
    extra: {}, devices: { apns_dev: [], apns_live: [], c2dm: [], gcm: [] }, created_at: 1_000, ...over,
  };
}
