// The inspector's page, built for the browser tests the way `npm run build` builds it.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const INSPECTOR_DIST = path.resolve('dist', 'inspector');

/** Builds inspector/ into dist/inspector (a few seconds) and returns that directory. */
export function buildInspector(): string {
  execFileSync(process.execPath, [path.resolve('node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'inspector/vite.config.ts', '--logLevel', 'error'], { stdio: 'inherit' });
  if (!existsSync(path.join(INSPECTOR_DIST, 'index.html'))) throw new Error('the inspector build wrote no index.html');
  return INSPECTOR_DIST;
}
