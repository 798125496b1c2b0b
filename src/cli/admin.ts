// Operator CLI for applications: `npm run admin -- app create --name NAME` and friends. It only
// calls the admin API over HTTP (so it works against any running node, local or not), prints the
// JSON answer, and exits non-zero with the error body when the server refuses.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';

const USAGE = `usage: npm run admin -- app <verb> [options]

verbs:
  app create --name NAME [--redirect-uri URI]...
                                            --redirect-uri (repeatable): where /oauth/authorize
                                            may send the application's users back
  app list
  app rotate-secret ID [--webhook]          new API secret and application token (every earlier
                                            application token stops working); with --webhook a new
                                            webhook secret too (the replaced one still signs for
                                            WEBHOOK_SECRET_OVERLAP_S)
  app update ID [--name NAME] [--store-history true|false] [--redirect-uri URI]... [--clear-redirect-uris]
                [--permanent-tokens true|false] [--callback-batch-max N]
                                            --redirect-uri replaces the registered list;
                                            --callback-batch-max 1..100: callbacks to one URL sent
                                            together in one POST (1: one event per POST)
  app delete ID                             deletes the application and everything it owns

options:
  --url URL      the service (default http://127.0.0.1:$PORT, PORT default 3000)
  --token TOKEN  the admin token (default $ADMIN_TOKEN)
  -h, --help`;

class UsageError extends Error {}

interface AdminCall {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
}

type Values = { name?: string; webhook?: boolean; 'store-history'?: string; 'redirect-uri'?: string[]; 'clear-redirect-uris'?: boolean; 'permanent-tokens'?: string; 'callback-batch-max'?: string };

/** The redirect URIs given (`--redirect-uri`, repeatable), an empty list for --clear-redirect-uris, or none. */
function redirectUris(values: Values, verb: string): string[] | undefined {
  if (values['clear-redirect-uris']) {
    if (verb !== 'update') throw new UsageError('--clear-redirect-uris is for app update');
    if (values['redirect-uri']) throw new UsageError('--clear-redirect-uris and --redirect-uri together');
    return [];
  }
  return values['redirect-uri'];
}

/** Maps the verb and its arguments to one admin API call. */
function toCall(positionals: string[], values: Values): AdminCall {
  const [group, verb, id, ...rest] = positionals;
  if (group !== 'app') throw new UsageError(group ? `unknown command "${group}"` : 'missing command');
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  const needId = () => {
    if (!id) throw new UsageError(`app ${verb} needs an application id`);
    return encodeURIComponent(id);
  };
  const noId = () => {
    if (id) throw new UsageError(`app ${verb} takes no id`);
  };
  switch (verb) {
    case 'create':
      noId();
      if (!values.name) throw new UsageError('app create needs --name NAME');
      {
        const uris = redirectUris(values, verb);
        return { method: 'POST', path: '/admin/app/create', body: { name: values.name, ...(uris ? { redirect_uris: uris } : {}) } };
      }
    case 'list':
      noId();
      return { method: 'GET', path: '/admin/app/list' };
    case 'rotate-secret':
      return { method: 'POST', path: `/admin/app/rotate_secret/${needId()}`, body: { webhook: values.webhook ?? false } };
    case 'update': {
      const body: Record<string, unknown> = {};
      if (values.name !== undefined) body.name = values.name;
      const sh = values['store-history'];
      if (sh !== undefined) {
        if (sh !== 'true' && sh !== 'false') throw new UsageError('--store-history takes true or false');
        body.store_history = sh === 'true';
      }
      const uris = redirectUris(values, verb);
      if (uris) body.redirect_uris = uris;
      const pt = values['permanent-tokens'];
      if (pt !== undefined) {
        if (pt !== 'true' && pt !== 'false') throw new UsageError('--permanent-tokens takes true or false');
        body.permanent_tokens = pt === 'true';
      }
      const batch = values['callback-batch-max'];
      if (batch !== undefined) {
        if (!/^\d+$/.test(batch)) throw new UsageError('--callback-batch-max takes a whole number from 1 to 100');
        body.callback_batch_max = Number(batch);
      }
      const path = `/admin/app/update/${needId()}`;
      if (Object.keys(body).length === 0) throw new UsageError('app update needs --name, --store-history, --redirect-uri, --clear-redirect-uris, --permanent-tokens or --callback-batch-max');
      return { method: 'POST', path, body };
    }
    case 'delete':
      return { method: 'POST', path: `/admin/app/delete/${needId()}` };
    default:
      throw new UsageError(verb ? `unknown verb "app ${verb}"` : 'missing verb after "app"');
  }
}

/** Where the local service listens, from the same configuration the server reads. */
function defaults(): { url: string; token?: string } {
  const config = loadConfig();
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  const host = wildcard ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return { url: `http://${host}:${config.port}`, token: config.adminToken };
}

const ID_VERBS = new Set(['update', 'rotate-secret', 'delete']);

/** Ids stored before ids avoided a leading '-' may begin with one: the word after these verbs is the id. */
function takeId(argv: string[]): { args: string[]; id?: string } {
  const [group, verb, id] = argv;
  const dashed = group === 'app' && ID_VERBS.has(verb ?? '') && id !== undefined && id.startsWith('-') && !id.startsWith('--') && id !== '-h';
  if (!dashed) return { args: argv };
  return { args: [group, verb!, ...argv.slice(3)], id };
}

async function main(argv: string[]): Promise<number> {
  const { args, id } = takeId(argv);
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        webhook: { type: 'boolean' },
        'store-history': { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true },
        'clear-redirect-uris': { type: 'boolean' },
        'permanent-tokens': { type: 'string' },
        'callback-batch-max': { type: 'string' },
        url: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values } = parsed;
  const positionals = id === undefined ? parsed.positionals : [...parsed.positionals.slice(0, 2), id, ...parsed.positionals.slice(2)];
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const call = toCall(positionals, values);
  // With both --url and --token the local configuration is not needed (nor validated).
  const local = values.url !== undefined && values.token !== undefined ? undefined : defaults();
  const base = (values.url ?? local?.url ?? '').replace(/\/+$/, '');
  const token = values.token ?? local?.token;
  if (!token) throw new UsageError('no admin token: set ADMIN_TOKEN or pass --token');

  let res: Response;
  try {
    res = await fetch(`${base}${call.path}`, {
      method: call.method,
      headers: { authorization: `Bearer ${token}`, ...(call.body ? { 'content-type': 'application/json' } : {}) },
      body: call.body ? JSON.stringify(call.body) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    console.error(`cannot reach ${base}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`);
    return 1;
  }
  const text = await res.text();
  let out = text;
  try {
    out = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    /* not JSON: print as received */
  }
  if (!res.ok) {
    console.error(out || `HTTP ${res.status}`);
    return 1;
  }
  console.log(out);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exitCode = 2;
    } else {
      console.error(err);
      process.exitCode = 1;
    }
  },
);
