#!/usr/bin/env node
/**
 * `npm run build`: bundles the Node/Electron side with esbuild into dist/electron/*.cjs
 * and builds the renderer with Vite into dist/renderer/.
 *
 *   node scripts/build.mjs [--skip-renderer-if-fresh] [--no-renderer]
 *
 * Why CJS bundles: Electron's sandboxed preload must be a single CommonJS file, and the
 * main process / worker / server / CLI load faster as one file each. Every npm package
 * stays external (`packages: 'external'`): better-sqlite3 is native, and the rest are
 * shipped in node_modules by electron-builder anyway.
 */
// Progress goes to stderr: `npm run serve` chains this script before the server, whose
// FIRST stdout line must be its URL.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'dist', 'electron');
const args = new Set(process.argv.slice(2));

/** source (relative to ROOT) -> output file name in dist/electron/. */
const ENTRIES = [
  ['electron/shell/main.ts', 'main.cjs'],
  ['electron/shell/preload.ts', 'preload.cjs'],
  ['electron/server/serve.ts', 'serve.cjs'],
  ['electron/services/pass-worker.ts', 'pass-worker.cjs'],
  ['electron/cli/main.ts', 'cli.cjs'],
];

// ESM sources use import.meta.url to find sibling files (the pass worker, resources);
// in a CJS bundle import.meta is empty, so define it from __filename.
const IMPORT_META_BANNER = "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;";

async function bundleElectron() {
  const started = performance.now();
  const present = [];
  for (const [src, out] of ENTRIES) {
    if (fs.existsSync(path.join(ROOT, src))) present.push([src, out]);
    else console.warn(`build: ${src} does not exist yet; skipping dist/electron/${out}`);
  }
  await Promise.all(
    present.map(([src, out]) =>
      build({
        entryPoints: [path.join(ROOT, src)],
        outfile: path.join(OUT, out),
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        // The sandboxed preload may require only 'electron', so it inlines everything
        // (it imports only 'electron' and the pure shared/contract).
        ...(out === 'preload.cjs' ? {} : { packages: 'external' }),
        external: ['electron'],
        sourcemap: 'linked',
        logLevel: 'warning',
        // (not in the sandboxed preload: it has no node:url, and needs no import.meta)
        ...(out === 'preload.cjs' ? {} : { banner: { js: IMPORT_META_BANNER }, define: { 'import.meta.url': '__importMetaUrl' } }),
      }),
    ),
  );
  console.error(`build: bundled ${present.length} entries into dist/electron/ in ${Math.round(performance.now() - started)} ms`);
}

/** Newest mtime of any file under dir (recursively), 0 when missing. */
function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return 0;
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop();
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) stack.push(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  }
  return newest;
}

async function buildRenderer() {
  const configFile = ['vite.config.ts', 'vite.config.mts', 'vite.config.js'].map((f) => path.join(ROOT, f)).find((f) => fs.existsSync(f));
  if (!configFile) {
    console.warn('build: no vite.config.ts yet; skipping the renderer build');
    return;
  }
  const outIndex = path.join(ROOT, 'dist', 'renderer', 'index.html');
  if (args.has('--skip-renderer-if-fresh') && fs.existsSync(outIndex)) {
    // The renderer also bundles shared/ (planners, contract), so those count as sources too.
    const sourcesNewest = Math.max(newestMtime(path.join(ROOT, 'renderer')), newestMtime(path.join(ROOT, 'shared')), fs.statSync(configFile).mtimeMs);
    if (newestMtime(path.join(ROOT, 'dist', 'renderer')) > sourcesNewest) {
      console.error('build: dist/renderer is newer than its sources; skipping vite build');
      return;
    }
  }
  const started = performance.now();
  const vite = await import(pathToFileURL(path.join(ROOT, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href).catch(() => import('vite'));
  await vite.build({ configFile, logLevel: 'warn' });
  console.error(`build: renderer built into dist/renderer/ in ${Math.round(performance.now() - started)} ms`);
}

try {
  await bundleElectron();
  if (!args.has('--no-renderer')) await buildRenderer();
} catch (err) {
  // esbuild already printed its located errors; Vite's come only in the message.
  console.error(`build failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
