// What a push provider (FCM, APNs) is to the rest of delivery: send one message to one device
// token and say whether the token is dead (then it is dropped from the user's devices), whether a
// later try could succeed, or neither.

export interface PushMessage {
  message_id: string;
  text: string;
  url?: string;
  layer_id?: string;
  trigger_id?: string;
  place_id?: string;
}

export type PushResult =
  | { ok: true }
  | {
      ok: false;
      /** The provider says the token will never work again: drop it from the user's devices. */
      unregistered: boolean;
      /** A later try could succeed (throttling, provider outage, network). */
      retryable: boolean;
      error: string;
      retryAfterMs?: number;
    };

export interface PushProvider {
  readonly name: string;
  send(token: string, message: PushMessage): Promise<PushResult>;
  close?(): Promise<void>;
}

/** The device lists of a user (UserDoc.devices) and the provider that serves each. */
export type DeviceKind = 'apns_live' | 'apns_dev' | 'gcm' | 'c2dm';
export type PushProviders = Partial<Record<DeviceKind, PushProvider>>;

/** Network-level failures (no response) are worth another try. */
export function networkFailure(err: unknown): PushResult {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const what = e?.name === 'TimeoutError' ? 'timeout' : (e?.cause?.code ?? e?.name ?? 'error');
  return { ok: false, unregistered: false, retryable: true, error: `${what}: ${e?.cause?.message ?? e?.message ?? String(err)}` };
}
