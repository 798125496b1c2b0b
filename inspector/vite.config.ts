// The web inspector's build (docs/inspector.md): Preact and Leaflet bundled into static files under
// dist/inspector, which the service serves at /inspector/ (src/plugins/inspector.ts). No CDN: the
// page works offline, and under a CSP that allows nothing inline.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/inspector/',
  // Preact's automatic JSX runtime (no Babel preset needed).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/inspector', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 250,
    // Every asset a file of its own, none inlined as a data: URL: the page's CSP allows images
    // from the service only (src/plugins/inspector.ts).
    assetsInlineLimit: 0,
  },
  logLevel: 'warn',
});
