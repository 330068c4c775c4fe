#!/usr/bin/env node
/**
 * `compaction-studio` launcher. Runs the esbuild bundle dist/electron/cli.cjs when it
 * exists (`npm run build`), else the TypeScript entry through tsx, so the command works
 * in a fresh checkout too. Plain Node: the CLI never needs Electron.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const bundle = path.join(root, 'dist', 'electron', 'cli.cjs');

if (fs.existsSync(bundle)) {
  require(bundle);
} else {
  const { spawnSync } = require('node:child_process');
  const { pathToFileURL } = require('node:url');
  let tsx;
  try {
    tsx = pathToFileURL(require.resolve('tsx', { paths: [root] })).href;
  } catch {
    process.stderr.write('compaction-studio: neither dist/electron/cli.cjs (run `npm run build`) nor tsx (run `npm install`) is available\n');
    process.exit(1);
  }
  const entry = path.join(root, 'electron', 'cli', 'main.ts');
  const result = spawnSync(process.execPath, ['--import', tsx, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`compaction-studio: ${result.error.message}\n`);
    process.exit(1);
  }
  process.exit(result.status ?? (result.signal ? 128 : 1));
}
