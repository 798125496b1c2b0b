// The one-line summary of every operation in the OpenAPI document, which the Swagger UI at /docs
// lists beside each path. Keyed by the route's path as registered (`:id`), or by `METHOD path`
// where the methods of one path do different things. test/http/openapi.test.ts checks that every
// operation has one and that every entry names a route.
export const SUMMARIES: Readonly<Record<string, string>> = {
  // The service
  '/health': 'Readiness: ok while the store takes writes, 503 while it refuses them',
  'GET /oauth/authorize': 'Sign-in page of "log in with the service" (authorization code or implicit grant)',
  'POST /oauth/authorize': 'Sign-in form: checks the user\'s password, then redirects back with a code or token',
  '/1/oauth/token': 'Tokens: client credentials, password, authorization code or refresh token',
  '/1/stream': 'Live message stream of a user (WebSocket)',
  '/1/inspector/events': 'Live notes for the web inspector: which users\' points were evaluated (server-sent events)',
  '/1/batch/run': 'Runs several API calls in one request',

  // Operator
  '/admin/app/create': 'Creates an application (API key, secret, webhook secret, token)',
  '/admin/app/list': 'Lists the applications',
  '/admin/app/rotate_secret/:id': 'Gives an application a new API secret or webhook secret',
  '/admin/app/update/:id': 'Changes an application\'s settings',
  '/admin/app/delete/:id': 'Deletes an application and everything it owns',

  // Applications
  '/1/application/list': 'The calling application, as a list of one',
  '/1/application/info/:id': 'An application\'s details',
  '/1/application/api_hits/:id': 'API calls of an application: today, this month, daily and monthly',
  '/1/application/layers/:id': 'An application\'s layers',
  '/1/application/usage/:id': 'Usage of an application: today, this month and in total',

  // Users and accounts
  '/1/user/create_anon': 'Creates an anonymous user (a phone app\'s first call) and its token',
  '/1/user/create': 'Creates a user with a username and password, and its token',
  '/1/user/list': 'Lists the application\'s users',
  '/1/user/list/:id': 'One user, in user/list\'s shape',
  '/1/user/info/:id': 'A user\'s profile',
  '/1/user/update/:id': 'Changes a user\'s profile',
  '/1/user/delete/:id': 'Deletes a user',
  '/1/user/secure_delete/:id': 'Deletes a user and erases their stored data',
  'GET /1/account/profile': 'The user\'s own profile',
  'POST /1/account/profile': 'Changes the user\'s own profile',
  'GET /1/account/username': 'The user\'s username',
  'POST /1/account/username': 'Sets the user\'s username (an anonymous user becomes a named one)',
  '/1/account/check_username': 'Whether a username is free',
  '/1/account/set_apn_token': 'Registers the phone\'s APNs push token',
  '/1/account/set_gcm_token': 'Registers the phone\'s FCM (GCM) push token',
  '/1/account/set_c2dm_token': 'Registers the phone\'s C2DM push token (the older name of GCM)',
  'GET /1/account/privacy': 'The user\'s privacy settings',
  'POST /1/account/privacy': 'Changes the user\'s privacy settings',
  '/1/account/permanent_token': 'A token for the user that does not expire (where the application allows it)',
  '/1/account/connections': 'The applications the user is connected to (their own)',

  // Locations
  '/1/location/update': 'Posts the phone\'s points (a JSON array): stored and evaluated against the triggers',
  '/1/location/last': 'The user\'s last point',
  '/1/location/history': 'The user\'s points over a time range',
  '/1/location/context': 'Where a point is: locality, region and country from bundled GeoNames data',
  'GET /1/location/tracking_profile': 'The phone\'s tracking profile (how often it reports)',
  'POST /1/location/tracking_profile': 'Sets the phone\'s tracking profile',
  '/1/location/delete_batch/:id': 'Deletes the points of one batch (from location/history?batch=true)',

  // Layers
  '/1/layer/create': 'Creates a layer (a group of places users subscribe to)',
  '/1/layer/update/:id': 'Changes a layer',
  '/1/layer/delete/:id': 'Deletes a layer, its places and their triggers',
  '/1/layer/info': 'A layer\'s details, by key',
  '/1/layer/info/:id': 'A layer\'s details',
  '/1/layer/list': 'Lists the application\'s layers',
  '/1/layer/subscribe/:id': 'Subscribes the user to a layer',
  '/1/layer/unsubscribe/:id': 'Unsubscribes the user from a layer',
  '/1/layer/subscriptions': 'The layers the user is subscribed to',
  '/1/layer/subscription/:id': 'The user\'s subscription to a layer, and its settings',
  '/1/layer/users/:id': 'The users subscribed to a layer',
  '/1/layer/nearby': 'The visible layers whose area holds a point',
  '/1/layer/user_clusters/:id': 'The last locations of a layer\'s users, grouped in clusters',

  // Places
  '/1/place/create': 'Creates a place (a circle or polygon on a layer)',
  '/1/place/update/:id': 'Changes a place',
  '/1/place/delete/:id': 'Deletes a place and its triggers',
  '/1/place/info': 'A place\'s details, by key',
  '/1/place/info/:id': 'A place\'s details',
  '/1/place/list': 'Lists places, of a layer or of the application',
  '/1/place/nearby': 'Places containing or near a point (or the user\'s last location)',
  '/1/place/list_unnamed': 'Lists the places that have no name',

  // Triggers
  '/1/trigger/create': 'Creates a trigger (a callback or message on entering, leaving or staying in a place)',
  '/1/trigger/update/:id': 'Changes a trigger',
  '/1/trigger/delete/:id': 'Deletes a trigger',
  '/1/trigger/info/:id': 'A trigger\'s details',
  '/1/trigger/list': 'Lists triggers, of a place or a layer',
  '/1/trigger/run/:id': 'Performs a trigger\'s action now and answers the payload it sent',
  '/1/trigger/history': 'What fired, and how each callback\'s delivery went',
  '/1/trigger/history/attempts': 'Lists every delivery attempt of one firing\'s callback',
  '/1/trigger/history/redeliver': 'Sends a finished callback again, same event id and payload',
  '/1/trigger/state': 'A user\'s state machines: inside, outside, dwelling, and why',
  '/1/trigger/state/:id': 'The state machines of one trigger',
  '/1/trigger/timeline': 'Every decision of one (user, trigger, place) machine, with its reason',
  '/1/trigger/replay': 'Dry run: what a track of points would fire, without storing anything',

  // Messages
  '/1/message/send': 'Sends a message to a user (inbox, live stream, push)',
  '/1/message/list': 'The user\'s messages',
  '/1/message/broadcast': 'Sends a message to the users subscribed to a layer',
  '/1/message/count_broadcast': 'How many users a broadcast would reach',
  '/1/message/device': 'Sends data to a user\'s live stream only',

  // Geonotes
  '/1/geonote/create': 'Leaves a note at a place, for whoever comes there',
  '/1/geonote/list_set': 'The user\'s geonotes not delivered yet',
  '/1/geonote/list_recent': 'The user\'s geonotes delivered, latest first',
  '/1/geonote/info/:id': 'A geonote\'s details',

  // Shared locations
  '/1/link/create': 'A share link to the user\'s location',
  '/1/trip/create': 'A share link for one trip',
  '/1/link/expire': 'Ends a share link',
  '/1/link/activate': 'Turns a share link back on',
  '/1/link/deactivate': 'Turns a share link off for now',
  '/1/link/stats': 'How often a share link was viewed',
  '/1/share/last': 'The last point behind a share link',
  '/1/share/history': 'The points behind a share link',
  '/1/share/info': 'What a share link shares',

  // Groups
  '/1/group/create': 'Creates a group',
  '/1/group/update/:token': 'Changes a group',
  '/1/group/delete/:token': 'Deletes a group',
  '/1/group/join/:token': 'Joins the user to a group',
  '/1/group/leave/:token': 'Takes the user out of a group',
  '/1/group/message/:token': 'Sends a message to a group\'s members',
  '/1/group/list': 'Groups: those the user created, or all of the application\'s',
  '/1/group/info/:token': 'A group\'s details',
  '/1/group/members/:token': 'A group\'s members',
  '/1/group/subscriptions': 'The groups a user is a member of, with the membership',
  '/1/group/messages/:token': 'A group\'s messages',
  '/1/group/locations/:token': 'The members\' recent points',
  '/1/group/last/:token': 'Each member\'s last point',
};

/** The summary of a route: by method and path, else by path. */
export function summaryOf(method: string | string[], url: string): string | undefined {
  const methods = [method].flat();
  return (methods.length === 1 ? SUMMARIES[`${methods[0]} ${url}`] : undefined) ?? SUMMARIES[url];
}
