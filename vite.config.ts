/**
 * Vite build of the window (renderer/) into dist/renderer/.
 * `base: './'` keeps every asset URL relative, so the same build loads from file:// in
 * Electron and from the browser-mode server. Vite's production output has no inline
 * scripts (the module preload polyfill is bundled into the entry chunk), which keeps it
 * compatible with the strict CSP both shells send.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/**
 * The window's Content-Security-Policy as a meta tag, added to the production build only
 * (Vite's dev server injects an inline React-refresh script a strict policy would block).
 * The shells send the same policy as a header; two policies intersect, so this only ever
 * tightens. React and React Flow set styles through the CSSOM, which style-src does not govern.
 */
export const RENDERER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function cspMeta(): Plugin {
  return {
    name: 'studio-csp-meta',
    apply: 'build',
    transformIndexHtml: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: RENDERER_CSP }, injectTo: 'head-prepend' }],
  };
}

export default defineConfig({
  root: path.join(ROOT, 'renderer'),
  base: './',
  plugins: [react(), cspMeta()],
  build: {
    outDir: path.join(ROOT, 'dist/renderer'),
    emptyOutDir: true,
    target: 'es2022',
    // The window is one screen; a single entry chunk plus the lazily loaded DAG view.
    chunkSizeWarningLimit: 1500,
    modulePreload: { polyfill: false },
  },
  server: {
    // `STUDIO_API=http://127.0.0.1:PORT npx vite` develops against a running `npm run serve`.
    proxy: process.env.STUDIO_API ? { '/api': { target: process.env.STUDIO_API, changeOrigin: false } } : undefined,
  },
});
