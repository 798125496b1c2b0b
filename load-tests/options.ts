// The command line of `npm run load -- [options]`: every option, its default and its check.
// load-tests/README.md documents the same list; `--help` prints it.
import { parseArgs } from 'node:util';
import { DEFAULT_ZONES, type ZoneParams } from './world.js';
import type { ProgressMode } from './progress.js';

export interface RunOptions {
  users: number;
  geofences: number;
  durationS: number;
  /** Seconds of load before the measured `durationS` (the world's opening burst of events, JIT). */
  warmupS: number;
  batch: number;
  /** Target points per second; undefined: unthrottled. */
  ratePps?: number;
  /** The maximum throughput `ratePps` is half of: the run is judged against the half-load latency goal. */
  halfOfPps?: number;
  concurrency: number;
  seed: number;
  url?: string;
  clientId?: string;
  clientSecret?: string;
  webhookSecret?: string;
  /** Host or IP the service uses to reach the callback receiver. */
  callbackHost: string;
  report?: string;
  quietShare: number;
  lateShare: number;
  jitterShare: number;
  staleShare: number;
  dwellS: number;
  /** The service's DWELL_GRACE_MS: set on the service this harness starts, expected by the oracle. */
  dwellGraceMs: number;
  /** The service's DWELL_TOLERANCE_MS: set on the service this harness starts, expected by the oracle. */
  dwellToleranceMs: number;
  rateLimitS: number;
  spacingM: number;
  fillerShare: number;
  /** Share of the places that may be shapes (load-tests/shapes.ts) that are a polygon or corridor. */
  shapeShare: number;
  /** 0: no baseline. */
  baselineDurationS: number;
  /** Seconds of the floor server (load-tests/floor-server.ts); 0: none. */
  floorDurationS: number;
  settleS: number;
  toleranceMs: number;
  callbackFailures: number;
  /** Seconds from the start of the load during which the receiver answers every delivery with 503. */
  receiverOutageS: number;
  streamSample: number;
  cpuProfDir?: string;
  /** Extra node/V8 options of the service process (never the baseline's). */
  serviceNodeArgs?: string[];
  /** Where the service's output goes (kept); default: its data directory, removed after a good run. */
  serviceLog?: string;
  setupConcurrency: number;
  zones: ZoneParams;
  shards?: number;
  maxRuntimeS: number;
  progress: ProgressMode;
  /** Rounds of the scenario's steps (or of the run), one after the other. */
  repeat: number;
  scenario?: string;
  /** Extra environment for the service process (tests). */
  serviceEnv?: Record<string, string>;
}

export const HELP = `Usage: npm run load -- [options]

Load:
  --users N               simulated phones (default 200)
  --geofences N           (trigger, place) pairs to create (default 1000)
  --duration S            seconds of measured load (default 30)
  --warmup S              seconds of load before the measured ones: correctness covers them,
                          throughput, latency and CPU figures do not (default 0)
  --batch N               points per location/update request; 1 = single-point mode (default 1)
  --rate R                target points per second (open loop); omit for unthrottled
  --concurrency N         HTTP connections / requests in flight (default 32)
  --seed N                seed of the world, the tracks and the GPS noise (default 1)
Behaviour of the phones:
  --quiet-phones F        share of phones that go quiet inside a dwell place (default 0.05)
  --late-batches F        share of phones that go offline and upload late (default 0.05)
  --jitter F              share of phones that loiter on place boundaries (default 0.1)
  --stale F               share of requests that also carry one out-of-date point (default 0.01)
  --dwell S               trigger_after of the dwell triggers (default 3)
  --dwell-tolerance-ms MS the service's DWELL_TOLERANCE_MS: how long after a dwell deadline its
                          clock fires it (set on the service this harness starts; default 1000)
  --dwell-grace-ms MS     the service's DWELL_GRACE_MS: for that long after it starts, its clock
                          fires no dwell (set on the service this harness starts; default 30000)
  --rate-limit S          trigger_rate_limit of the rate-limited layer (default 8)
  --spacing M             mean distance between place centres, metres (default 350)
  --filler-share F        share of places that are plain bulk-layer places (default 0.4)
  --shape-share F         share of the places without dwell, window or inline trigger that are a
                          polygon or a corridor instead of a circle (default 0.3; 0 with zone
                          parameters under which a shape's margin depends on its radius)
Service:
  --url URL               drive a running service instead of starting one (needs the next two)
  --client-id ID          its application's client id
  --client-secret SECRET  its application's client secret
  --webhook-secret WHSEC  the application's webhook secret (to verify signatures against --url)
  --callback-host HOST    host the service reaches the callback receiver at (default 127.0.0.1)
  --shards N              SHARDS of the service this harness starts
  --leave-margin-min M, --leave-margin-ratio R, --max-accuracy-min M
                          the service's hysteresis settings (defaults 20, 0.1, 100)
Measurement and report:
  --report FILE.json      report path; FILE.html is written beside it
                          (default load-tests/reports/load-<time>.json)
  --baseline-duration S   seconds of the bare-Fastify baseline; 0 = none (default min(duration, 10))
  --floor-duration S      seconds of the floor server, the least this design does per point
                          (load-tests/floor-server.ts); 0 = none (default 0)
  --settle S              seconds to wait for late callbacks after the last deadline (default 3)
  --tolerance-ms MS       firing-time tolerance when matching events (default 500)
  --half-of PPS           --rate is half of PPS, a maximum measured before: judge the callback
                          latency goal (p99 ≤ 100 ms at half load); latency-half passes it
  --callback-failures F   share of first callback deliveries the receiver refuses with 503 (default 0)
  --receiver-outage S     the receiver answers every delivery with 503 for the first S seconds of
                          the load, then recovers; the report says when the last event it held
                          back arrived (default 0)
  --stream-sample N       users whose /1/stream is watched for message latency (default 10)
  --cpu-prof DIR          run the service with --cpu-prof into DIR and summarise its measured
                          seconds in the report
  --service-node-args "A" extra node/V8 options of the service process, e.g. "--trace-gc-nvp"
  --service-log FILE      append the service's output to FILE (kept after the run)
  --setup-concurrency N   parallel API calls while creating the world (default 16)
  --max-runtime S         hard limit for the whole run (default 3 × (warm-up + duration) + 900
                          + 0.05 s a geofence + 0.1 s a user)
  --no-progress           no progress bar: one line as each phase starts (CI logs, scripts)
  --scenario NAME         a preset from load-tests/README.md: ci, single-2000, batch-50, latency-half, geofence-scaling,
                          event-heavy, receiver-outage
  --repeat N              run the scenario's steps (or the run) N times in a row, alternating sizes,
                          and print the goal's figure per round with its mean, lowest and highest
  --help
`;

export class UsageError extends Error {}

function num(v: string | undefined, name: string, fallback: number, min: number, max: number, integer = false): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) throw new UsageError(`--${name} must be ${integer ? 'a whole number' : 'a number'}, got "${v}"`);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function parseOptions(argv: string[]): RunOptions & { help: boolean } {
  const spec = {
    users: { type: 'string' }, geofences: { type: 'string' }, duration: { type: 'string' }, warmup: { type: 'string' }, batch: { type: 'string' },
    rate: { type: 'string' }, concurrency: { type: 'string' }, seed: { type: 'string' }, url: { type: 'string' },
    'client-id': { type: 'string' }, 'client-secret': { type: 'string' }, 'webhook-secret': { type: 'string' },
    'callback-host': { type: 'string' }, report: { type: 'string' }, 'quiet-phones': { type: 'string' },
    'late-batches': { type: 'string' }, jitter: { type: 'string' }, stale: { type: 'string' }, dwell: { type: 'string' },
    'rate-limit': { type: 'string' }, spacing: { type: 'string' }, 'filler-share': { type: 'string' }, 'shape-share': { type: 'string' }, 'baseline-duration': { type: 'string' }, 'floor-duration': { type: 'string' },
    settle: { type: 'string' }, 'dwell-grace-ms': { type: 'string' }, 'dwell-tolerance-ms': { type: 'string' }, 'tolerance-ms': { type: 'string' }, 'callback-failures': { type: 'string' }, 'receiver-outage': { type: 'string' }, 'half-of': { type: 'string' },
    'stream-sample': { type: 'string' }, 'cpu-prof': { type: 'string' }, 'service-node-args': { type: 'string' }, 'service-log': { type: 'string' }, 'setup-concurrency': { type: 'string' },
    'leave-margin-min': { type: 'string' }, 'leave-margin-ratio': { type: 'string' }, 'max-accuracy-min': { type: 'string' },
    shards: { type: 'string' }, 'max-runtime': { type: 'string' }, 'no-progress': { type: 'boolean' },
    scenario: { type: 'string' }, repeat: { type: 'string' }, help: { type: 'boolean' },
  } as const;
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: spec, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const s = (k: string) => values[k] as string | undefined;
  const durationS = num(s('duration'), 'duration', 30, 1, 24 * 3600);
  const warmupS = num(s('warmup'), 'warmup', 0, 0, 3600);
  const users = num(s('users'), 'users', 200, 1, 1_000_000, true);
  const geofences = num(s('geofences'), 'geofences', 1000, 1, 10_000_000, true);
  const url = s('url');
  if (url !== undefined) {
    if (!/^https?:\/\//.test(url)) throw new UsageError('--url must start with http:// or https://');
    if (!s('client-id') || !s('client-secret')) throw new UsageError('--url needs --client-id and --client-secret (the harness cannot create an application there)');
  }
  const rate = s('rate');
  const halfOf = s('half-of');
  if (halfOf !== undefined && rate === undefined) throw new UsageError('--half-of needs --rate (the half-load rate the run is made at)');
  const report = s('report');
  if (report !== undefined && !/\.json$/i.test(report)) throw new UsageError('--report must name a .json file');
  return {
    help: Boolean(values.help),
    users,
    geofences,
    durationS,
    warmupS,
    batch: num(s('batch'), 'batch', 1, 1, 10_000, true),
    ...(rate !== undefined ? { ratePps: num(rate, 'rate', 0, 1, 100_000_000) } : {}),
    ...(halfOf !== undefined ? { halfOfPps: num(halfOf, 'half-of', 0, 1, 100_000_000) } : {}),
    concurrency: num(s('concurrency'), 'concurrency', 32, 1, 4096, true),
    seed: num(s('seed'), 'seed', 1, 0, 2 ** 31 - 1, true),
    ...(url !== undefined ? { url: url.replace(/\/+$/, ''), clientId: s('client-id'), clientSecret: s('client-secret') } : {}),
    ...(s('webhook-secret') ? { webhookSecret: s('webhook-secret') } : {}),
    callbackHost: s('callback-host') ?? '127.0.0.1',
    ...(report !== undefined ? { report } : {}),
    quietShare: num(s('quiet-phones'), 'quiet-phones', 0.05, 0, 1),
    lateShare: num(s('late-batches'), 'late-batches', 0.05, 0, 1),
    jitterShare: num(s('jitter'), 'jitter', 0.1, 0, 1),
    staleShare: num(s('stale'), 'stale', 0.01, 0, 1),
    dwellS: num(s('dwell'), 'dwell', 3, 1, 3600, true),
    dwellGraceMs: num(s('dwell-grace-ms'), 'dwell-grace-ms', 30_000, 0, 3_600_000, true),
    dwellToleranceMs: num(s('dwell-tolerance-ms'), 'dwell-tolerance-ms', 1_000, 0, 3_600_000, true),
    rateLimitS: num(s('rate-limit'), 'rate-limit', 8, 1, 86_400, true),
    spacingM: num(s('spacing'), 'spacing', 350, 50, 100_000),
    fillerShare: num(s('filler-share'), 'filler-share', 0.4, 0, 1),
    shapeShare: num(s('shape-share'), 'shape-share', 0.3, 0, 1),
    baselineDurationS: num(s('baseline-duration'), 'baseline-duration', Math.min(durationS, 10), 0, 24 * 3600),
    floorDurationS: num(s('floor-duration'), 'floor-duration', 0, 0, 24 * 3600),
    settleS: num(s('settle'), 'settle', 3, 0.5, 600),
    toleranceMs: num(s('tolerance-ms'), 'tolerance-ms', 500, 0, 60_000),
    callbackFailures: num(s('callback-failures'), 'callback-failures', 0, 0, 0.9),
    receiverOutageS: num(s('receiver-outage'), 'receiver-outage', 0, 0, 3600),
    streamSample: num(s('stream-sample'), 'stream-sample', 10, 0, 1000, true),
    ...(s('cpu-prof') ? { cpuProfDir: s('cpu-prof') } : {}),
    ...(s('service-node-args') ? { serviceNodeArgs: s('service-node-args')!.split(/\s+/).filter(Boolean) } : {}),
    ...(s('service-log') ? { serviceLog: s('service-log') } : {}),
    setupConcurrency: num(s('setup-concurrency'), 'setup-concurrency', 16, 1, 256, true),
    zones: {
      leaveMarginMinM: num(s('leave-margin-min'), 'leave-margin-min', DEFAULT_ZONES.leaveMarginMinM, 0, 10_000),
      leaveMarginRatio: num(s('leave-margin-ratio'), 'leave-margin-ratio', DEFAULT_ZONES.leaveMarginRatio, 0, 10),
      maxAccuracyMinM: num(s('max-accuracy-min'), 'max-accuracy-min', DEFAULT_ZONES.maxAccuracyMinM, 0, 100_000),
    },
    ...(s('shards') ? { shards: num(s('shards'), 'shards', 2, 1, 64, true) } : {}),
    // Creating the world takes time too: about 50 ms per geofence at worst on this machine.
    maxRuntimeS: num(s('max-runtime'), 'max-runtime', (durationS + warmupS) * 3 + 900 + Math.ceil(geofences * 0.05 + users * 0.1), 10, 7 * 86_400),
    progress: values['no-progress'] ? 'lines' : 'bar',
    repeat: num(s('repeat'), 'repeat', 1, 1, 50, true),
    ...(s('scenario') ? { scenario: s('scenario') } : {}),
  };
}
