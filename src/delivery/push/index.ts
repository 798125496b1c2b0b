// Which provider serves which device list, built from configuration (config.push). Providers whose
// variables are unset are simply absent: tokens of that kind are then kept but not pushed to.
// c2dm tokens go to FCM: Google retired C2DM for GCM and GCM for FCM; a token from that era is
// answered UNREGISTERED and dropped, which is the right end for it.
import type { PushConfig } from '../../config.js';
import { ApnsProvider, readApnsKey } from './apns.js';
import { FcmProvider, readServiceAccount } from './fcm.js';
import type { PushProviders } from './provider.js';

export async function providersFromConfig(config: PushConfig | undefined): Promise<PushProviders> {
  const providers: PushProviders = {};
  if (config?.fcm) {
    const fcm = new FcmProvider({ projectId: config.fcm.projectId, account: await readServiceAccount(config.fcm.serviceAccountFile) });
    providers.gcm = fcm;
    providers.c2dm = fcm;
  }
  if (config?.apns) {
    const key = await readApnsKey(config.apns.keyFile);
    const base = { key, keyId: config.apns.keyId, teamId: config.apns.teamId, topic: config.apns.topic };
    providers.apns_live = new ApnsProvider({ ...base, production: true });
    providers.apns_dev = new ApnsProvider({ ...base, production: false });
  }
  return providers;
}

export async function closeProviders(providers: PushProviders): Promise<void> {
  for (const p of new Set(Object.values(providers))) await p?.close?.();
}

export type { DeviceKind, PushMessage, PushProvider, PushProviders, PushResult } from './provider.js';
export { ApnsProvider } from './apns.js';
export { FcmProvider } from './fcm.js';
