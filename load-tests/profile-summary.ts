// Where the service's time goes: a summary of the V8 CPU profiles the service writes when the run
// starts it with --cpu-prof (one file per thread), by function and by package or source folder.
// With a window (ms since the service process started: the harness gives the measured seconds of
// the load phase), only samples taken in it count; without one, the service's whole life
// (start-up and setup too). Time a worker spends blocked waiting for its next task is idle, not busy.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const IDLE = new Set(['(idle)', '(program)', 'atomicsWaitLoop']);

export interface ProfileSummary {
  files: string[];
  /** Busy time per thread (one profile file each: the main thread, then the workers). */
  threads: Array<{ file: string; busy_ms: number }>;
  total_ms: number;
  /** The seconds of the service's life the summary covers, when not all of it. */
  window_s?: { from: number; to: number };
  by_area: Array<{ area: string; ms: number; share: number }>;
  top_functions: Array<{ fn: string; where: string; ms: number; share: number }>;
}

/** Groups a frame by its script: a package under node_modules, a folder of this repository, node itself, or native code by name. */
export function areaOf(url: string, functionName = ''): string {
  // Frames without a script are V8's and Node's native code, each named: socket writes (writev),
  // file writes (writeBuffer), messages to threads (postMessage) are different costs. Idle is not counted.
  if (!url) return functionName === '(garbage collector)' ? 'garbage collector' : `native ${functionName || '(unnamed)'}`;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `package ${nm[1]}`;
  if (url.startsWith('node:')) return 'node internals';
  const repo = /\/(src|machines|workers)\/([^/]+)/.exec(url);
  if (repo) return `${repo[1]}/${repo[2].replace(/\.[jt]s$/, '')}`;
  return path.basename(url);
}

/** A span of the service's life in ms since the process started (the earliest profile's start). */
export interface ProfileWindow {
  fromMs: number;
  toMs: number;
}

export function summarizeProfiles(profiles: Array<{ file: string; profile: CpuProfile }>, top = 25, window?: ProfileWindow): ProfileSummary {
  // Every thread's profile shares the process's monotonic clock (µs); the main thread's starts first.
  const origin = Math.min(...profiles.map((p) => p.profile.startTime));
  const from = window ? origin + window.fromMs * 1000 : -Infinity;
  const to = window ? origin + window.toMs * 1000 : Infinity;
  const byFn = new Map<string, { fn: string; where: string; us: number }>();
  const byArea = new Map<string, number>();
  let totalUs = 0;
  const threads: ProfileSummary['threads'] = [];
  for (const { file, profile } of profiles) {
    let threadUs = 0;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const samples = profile.samples ?? [];
    const deltas = profile.timeDeltas ?? [];
    let at = profile.startTime;
    for (let i = 0; i < samples.length; i++) {
      const node = nodes.get(samples[i]);
      const us = deltas[i] ?? 0;
      at += us;
      if (at < from || at >= to) continue;
      if (!node || us <= 0) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      // Idle, including a worker blocked in Atomics.wait for its next task (piscina's wait loop).
      if (IDLE.has(functionName)) continue;
      totalUs += us;
      threadUs += us;
      const where = url ? `${url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|src|machines|workers|load-tests)\//, '$1/')}:${lineNumber + 1}` : '';
      const key = `${functionName}@${where}`;
      const entry = byFn.get(key) ?? { fn: functionName || '(anonymous)', where, us: 0 };
      entry.us += us;
      byFn.set(key, entry);
      const area = areaOf(url, functionName);
      byArea.set(area, (byArea.get(area) ?? 0) + us);
    }
    threads.push({ file: path.basename(file), busy_ms: Math.round(threadUs / 1000) });
  }
  const share = (us: number) => (totalUs ? Math.round((us / totalUs) * 1000) / 10 : 0);
  return {
    files: profiles.map((p) => path.basename(p.file)),
    threads,
    total_ms: Math.round(totalUs / 1000),
    ...(window ? { window_s: { from: Math.round(window.fromMs / 100) / 10, to: Math.round(window.toMs / 100) / 10 } } : {}),
    by_area: [...byArea].sort((a, b) => b[1] - a[1]).slice(0, top).map(([area, us]) => ({ area, ms: Math.round(us / 1000), share: share(us) })),
    top_functions: [...byFn.values()].sort((a, b) => b.us - a.us).slice(0, top).map((e) => ({ fn: e.fn, where: e.where, ms: Math.round(e.us / 1000), share: share(e.us) })),
  };
}

export async function summarizeProfileDir(dir: string, window?: ProfileWindow): Promise<ProfileSummary | undefined> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.cpuprofile'));
  } catch {
    return undefined;
  }
  if (names.length === 0) return undefined;
  const profiles = await Promise.all(names.map(async (n) => ({ file: path.join(dir, n), profile: JSON.parse(await readFile(path.join(dir, n), 'utf8')) as CpuProfile })));
  return summarizeProfiles(profiles, 25, window);
}
