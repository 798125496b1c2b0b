// Child processes the harness starts and stops itself: the service under test (src/server.ts on a
// free loopback port over a fresh DATA_DIR) and the bare Fastify baseline. Each is watched for its
// resident memory (VmRSS in /proc/<pid>/status) and stopped by its own pid, never by name.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function readRssMb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds of a /proc stat line (process or thread), in USER_HZ (100) ticks. */
function statCpuSeconds(stat: string): number {
  // The fields after the name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds a process has used, all threads and its main thread (Linux /proc). The box is
 * shared, so wall-clock throughput alone misleads: CPU per point says what a change saved.
 */
export function cpuSeconds(pid: number): { all: number; main: number } | undefined {
  const ticks = (file: string) => statCpuSeconds(readFileSync(file, 'utf8'));
  try {
    return { all: ticks(`/proc/${pid}/stat`), main: ticks(`/proc/${pid}/task/${pid}/stat`) };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of a process's named threads, summed by name (the service names its shard and
 * sender threads: workers/thread-name.ts); Node's own helpers all carry the process's name and
 * are left out, as is the main thread (see cpuSeconds). Threads that ended take their time along.
 */
export function namedThreadSeconds(pid: number): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      if (tid === String(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        // The name is between the first '(' and the last ')' of the stat line.
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        if (name.startsWith('gt-')) out[name] = (out[name] ?? 0) + statCpuSeconds(stat);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  } catch {
    return undefined;
  }
  return out;
}

/**
 * Seconds a process's threads spent waiting for a core while runnable (Linux schedstat, second
 * field, ns): all threads summed, and the main thread. On a shared box a thread can be busy
 * without running; the CPU figures above do not show that time.
 */
export function runQueueSeconds(pid: number | 'self'): { all: number; main: number } | undefined {
  const waited = (file: string) => Number(readFileSync(file, 'utf8').split(' ')[1]) / 1e9;
  try {
    const main = waited(`/proc/${pid}/task/${pid === 'self' ? process.pid : pid}/schedstat`);
    let all = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        all += waited(`/proc/${pid}/task/${tid}/schedstat`);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return Number.isFinite(main) && Number.isFinite(all) ? { all, main } : undefined;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; keeps the peak and a timeline. */
export class RssSampler {
  peakMb = 0;
  readonly samples: Array<{ at: number; mb: number }> = [];
  private timer?: NodeJS.Timeout;

  constructor(private readonly pid: number, private readonly everyMs = 250) {}

  start(): this {
    const tick = async () => {
      const mb = await readRssMb(this.pid);
      if (mb !== undefined) {
        this.peakMb = Math.max(this.peakMb, mb);
        if (this.samples.length < 20_000) this.samples.push({ at: Date.now(), mb });
      }
    };
    void tick();
    this.timer = setInterval(() => void tick(), this.everyMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

export interface ChildOptions {
  /** Script relative to the repository root, run with tsx. */
  script: string;
  env: Record<string, string>;
  port: number;
  nodeArgs?: string[];
  /** stdout and stderr go here (appended). */
  logFile?: string;
  /** How long to wait for GET /health. */
  readyTimeoutMs?: number;
}

/**
 * The V8 flags of `npm start` (package.json), given to every process the harness starts, the
 * service and the bare baseline alike, so both run on the same runtime settings.
 */
export const RUNTIME_ARGS = ['--max-semi-space-size=64'];

export class ChildServer {
  readonly url: string;
  readonly rss: RssSampler;
  private exited = false;
  private exitCode: number | null = null;
  private readonly tail: string[] = [];

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    /** Epoch ms just before the process was spawned: where its CPU profiles' clock begins, near enough. */
    readonly spawnedAt: number,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.rss = new RssSampler(child.pid!);
    child.once('exit', (code) => {
      this.exited = true;
      this.exitCode = code;
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The last lines the process wrote, for error messages. */
  get output(): string {
    return this.tail.join('');
  }

  static async start(o: ChildOptions): Promise<ChildServer> {
    const spawnedAt = Date.now();
    const child = spawn(process.execPath, [...RUNTIME_ARGS, ...(o.nodeArgs ?? []), '--import', 'tsx', o.script], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...o.env, PORT: String(o.port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (!child.pid) throw new Error(`could not start ${o.script}`);
    const server = new ChildServer(child, o.port, spawnedAt);
    liveChildren.add(child);
    child.once('exit', () => liveChildren.delete(child));
    const log = o.logFile ? createWriteStream(o.logFile, { flags: 'a' }) : undefined;
    const keep = (chunk: Buffer) => {
      log?.write(chunk);
      server.tail.push(chunk.toString('utf8'));
      while (server.tail.length > 40) server.tail.shift();
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('exit', () => log?.end());
    await server.waitReady(o.readyTimeoutMs ?? 60_000);
    server.rss.start();
    return server;
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`the process exited with code ${this.exitCode} before it was ready:\n${this.output}`);
      try {
        const res = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(1000) });
        await res.arrayBuffer();
        if (res.status === 200) return;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await this.stop();
    throw new Error(`no 200 from ${this.url}/health within ${timeoutMs} ms:\n${this.output}`);
  }

  /** SIGTERM (graceful shutdown, CPU profiles written), then SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<number | null> {
    this.rss.stop();
    if (this.exited) return this.exitCode;
    const done = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (!this.exited) this.child.kill('SIGKILL');
    }, graceMs);
    await done;
    clearTimeout(timer);
    return this.exitCode;
  }
}

// Children still running when the harness exits (an exception, Ctrl-C, SIGTERM) are stopped by
// their pid: a signal is passed on (the service shuts down gracefully), a plain exit kills them.
const liveChildren = new Set<ChildProcess>();
function killChildren(signal: NodeJS.Signals): void {
  for (const c of liveChildren) {
    try {
      c.kill(signal);
    } catch {
      /* already gone */
    }
  }
}
process.once('exit', () => killChildren('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killChildren('SIGTERM');
    process.stderr.write(`\n${signal}: stopping\n`);
    // Let the children start their shutdown, then leave (the exit hook kills what is left).
    setTimeout(() => process.exit(130), 2000).unref();
  });
}
