// The execArgv of this project's worker threads (engine shards, the callback sender).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Options a worker takes from the parent. Workers refuse V8 options (`--trace-gc`,
 * `--max-semi-space-size`, `--single-threaded-gc`…: ERR_WORKER_INVALID_EXEC_ARGV), which act on
 * the whole process anyway; they need the loaders (tsx), the conditions and the profilers.
 */
const KEPT = /^(--(import|require|loader|experimental-loader|conditions|enable-source-maps|cpu-prof|heap-prof|no-warnings|no-deprecation|trace-warnings|trace-uncaught)\b|-r$|-C$)/;
/** Those of them whose value may be the next argument. */
const TAKES_VALUE = /^(--(import|require|loader|experimental-loader|conditions|cpu-prof-(dir|name|interval)|heap-prof-(dir|name|interval))|-r|-C)$/;

/**
 * Workers must load TypeScript. Threads take the parent's execArgv, which carries tsx's loader
 * when the process was started with tsx; otherwise (vitest, plain node) the loader is added. Code
 * given with --eval / --print is the parent's, never the worker's: it is dropped with every other
 * option outside KEPT.
 */
export function workerExecArgv(argv: readonly string[] = process.execArgv): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const takesNext = TAKES_VALUE.test(a) && i + 1 < argv.length;
    if (KEPT.test(a)) {
      args.push(a);
      if (takesNext) args.push(argv[++i]!);
    } else if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') i++;
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
