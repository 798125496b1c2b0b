// The values of the unique `uniq_*` fields: a username, email or key is unique within its
// application (a place's key within its layer), usernames and emails in any case. Services write
// them into new and changed documents; repositories look objects up by them.
export const uniqUsername = (appId: string, username: string) => `${appId}:${username.toLowerCase()}`;
export const uniqEmail = (appId: string, email: string) => `${appId}:${email.toLowerCase()}`;
/** A user's, a layer's or a trigger's key. */
export const uniqKey = (appId: string, key: string) => `${appId}:${key}`;
export const uniqPlaceKey = (appId: string, layerId: string, key: string) => `${appId}:${layerId}:${key}`;
