// The execArgv of this project's worker threads (engine shards, the callback sender).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Workers must load TypeScript. Threads take the parent's execArgv, which carries tsx's loader
 * when the process was started with tsx; otherwise (vitest, plain node) the loader is added. Code
 * given with --eval / --print is the parent's, never the worker's: it is dropped.
 */
export function workerExecArgv(): string[] {
  const args: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') {
      i++;
      continue;
    }
    if (a.startsWith('--eval=') || a.startsWith('--print=')) continue;
    // Heap sizes are per isolate and refused in a worker's execArgv (ERR_WORKER_INVALID_EXEC_ARGV).
    if (/^--max-(semi|old)-space-size/.test(a)) continue;
    args.push(a);
  }
  if (!args.some((a) => a.includes('tsx'))) args.push('--import', tsxLoader());
  return args;
}

function tsxLoader(): string {
  try {
    const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
    return pathToFileURL(join(dirname(pkg), 'dist', 'loader.mjs')).href;
  } catch {
    return 'tsx';
  }
}
