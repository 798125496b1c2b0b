// `npm run build`: compiles src/, machines/ and workers/ to dist/ (tsc) and bundles the inspector
// into dist/inspector (Vite), then records what it built from. `npm start` (and the operator's
// `npm run admin` and `import-legacy`) run it with --if-stale, which builds only when a source, a
// configuration or the lockfile changed since (or dist/ is missing), so a start after an unchanged
// checkout needs neither TypeScript nor Vite.
// Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INPUTS = ['src', 'machines', 'workers', 'inspector', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const OUTPUTS = ['dist/src/server.js', 'dist/inspector/index.html'];
const STAMP = 'dist/.inputs';
const STEPS = [
  ['tsc', '-p', 'tsconfig.build.json'],
  ['vite', 'build', '--config', 'inspector/vite.config.ts'],
];

/** Every input's path, size and modification time (directories too, so a removal counts). */
function fingerprint() {
  const hash = createHash('sha256');
  const visit = (rel) => {
    const full = path.join(ROOT, rel);
    if (!existsSync(full)) return;
    const stat = statSync(full);
    hash.update(`${rel}\0${stat.size}\0${stat.mtimeMs}\n`);
    if (stat.isDirectory()) for (const name of readdirSync(full).sort()) visit(path.join(rel, name));
  };
  for (const input of INPUTS) visit(input);
  return hash.digest('hex');
}

function upToDate(inputs) {
  if (!OUTPUTS.every((file) => existsSync(path.join(ROOT, file)))) return false;
  try {
    return readFileSync(path.join(ROOT, STAMP), 'utf8') === inputs;
  } catch {
    return false;
  }
}

const inputs = fingerprint();
// Silent when there is nothing to do: `npm run --silent admin` prints only the answer's JSON.
if (process.argv.includes('--if-stale') && upToDate(inputs)) process.exit(0);
const bin = path.join(ROOT, 'node_modules', '.bin');
for (const [tool, ...args] of STEPS) {
  const run = spawnSync(path.join(bin, tool), args, { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  if (run.status !== 0) {
    if (run.error) console.error(`${tool}: ${run.error.message} (the build needs the dev dependencies: npm install)`);
    process.exit(run.status ?? 1);
  }
}
// The fingerprint taken before the build: a file changed while it ran makes the next start build again.
writeFileSync(path.join(ROOT, STAMP), inputs);
