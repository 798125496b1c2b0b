// How this project's worker threads (engine shards, the callback sender) are started: their entry
// file and their execArgv, for either way the service runs: compiled JavaScript from dist/
// (`npm start`), or TypeScript through tsx (`npm run dev`, vitest, the load tests).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Whether this process runs the TypeScript sources (tsx, vitest) rather than dist/'s JavaScript. */
export const RUNNING_TYPESCRIPT = import.meta.url.endsWith('.ts');

/**
 * The entry file of a worker in workers/, by its name without extension: the compiled `.js` beside
 * this module in dist/, the `.ts` source otherwise. `typescriptEntry` names another file for the
 * TypeScript case (a CommonJS shim, when the worker has to be loaded through tsx's require hook).
 */
export function workerEntry(name: string, typescriptEntry = `${name}.ts`, typescript = RUNNING_TYPESCRIPT): URL {
  return new URL(`./${typescript ? typescriptEntry : `${name}.js`}`, import.meta.url);
}

/**
 * Options a worker takes from the parent. Workers refuse V8 options (`--trace-gc`,
 * `--max-semi-space-size`, `--single-threaded-gc`…: ERR_WORKER_INVALID_EXEC_ARGV), which act on
 * the whole process anyway; they need the loaders (tsx), the conditions and the profilers.
 */
const KEPT = /^(--(import|require|loader|experimental-loader|conditions|enable-source-maps|cpu-prof|heap-prof|no-warnings|no-deprecation|trace-warnings|trace-uncaught)\b|-r$|-C$)/;
/** Those of them whose value may be the next argument. */
const TAKES_VALUE = /^(--(import|require|loader|experimental-loader|conditions|cpu-prof-(dir|name|interval)|heap-prof-(dir|name|interval))|-r|-C)$/;

/**
 * Running TypeScript, workers must load it too. Threads take the parent's execArgv, which carries
 * tsx's loader when the process was started with tsx; otherwise (vitest) the loader is added.
 * Compiled, they need no loader and get none. Code given with --eval / --print is the parent's,
 * never the worker's: it is dropped with every other option outside KEPT.
 */
export function workerExecArgv(argv: readonly string[] = process.execArgv, typescript = RUNNING_TYPESCRIPT): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const takesNext = TAKES_VALUE.test(a) && i + 1 < argv.length;
    if (KEPT.test(a)) {
      args.push(a);
      if (takesNext) args.push(argv[++i]!);
    } else if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') i++;
  }
  if (typescript && !args.some((a) => a.includes('tsx'))) args.push('--import', tsxLoader());
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
