#!/usr/bin/env node
/**
 * `npm start`: build, make sure the Electron binary and the Electron build of
 * better-sqlite3 are there (both are downloads, done once), then launch the desktop app.
 * Arguments after `--` go to Electron. Where Electron cannot be downloaded, it says so
 * and points at browser mode (`npm run serve`), which needs neither.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ELECTRON_DIR = path.join(ROOT, 'node_modules', 'electron');
const require = createRequire(import.meta.url);

const BROWSER_MODE_HINT = 'The same app runs in your browser without Electron: npm run serve';

function fail(message) {
  console.error(`\n${message}\n${BROWSER_MODE_HINT}\n`);
  process.exit(1);
}

function step(script, args = []) {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', script), ...args], { cwd: ROOT, stdio: 'inherit' });
  return result.status === 0;
}

/** Electron's own installed check (install.js isInstalled): dist/version and path.txt present. */
function electronInstalled() {
  const pathFile = path.join(ELECTRON_DIR, 'path.txt');
  if (!fs.existsSync(pathFile)) return false;
  return fs.existsSync(path.join(ELECTRON_DIR, 'dist', fs.readFileSync(pathFile, 'utf8')));
}

/**
 * The binary downloads on first use (electron >= 42 has no postinstall). Run its installer
 * ourselves with the output captured, so an offline machine gets one clear sentence
 * instead of a stack trace from inside require('electron').
 */
function ensureElectronBinary() {
  if (!electronInstalled()) {
    const version = JSON.parse(fs.readFileSync(path.join(ELECTRON_DIR, 'package.json'), 'utf8')).version;
    console.error(`start: downloading the Electron ${version} binary (once)…`);
    const result = spawnSync(process.execPath, [path.join(ELECTRON_DIR, 'install.js')], { cwd: ELECTRON_DIR, encoding: 'utf8', timeout: 10 * 60 * 1000 });
    if (result.status !== 0 || !electronInstalled()) {
      const output = `${result.stderr ?? ''}${result.stdout ?? ''}`;
      const reason = output.split('\n').find((l) => /error|ENOTFOUND|ECONN|ETIMEDOUT|EAI_AGAIN|40\d|50\d/i.test(l))?.trim() ?? result.error?.message ?? `exit code ${result.status}`;
      fail(`Could not download the Electron ${version} binary (${reason}).\nIt comes from github.com; retry when connected, or set ELECTRON_MIRROR to a reachable mirror.`);
    }
  }
  // Now that it is installed, require('electron') returns the executable's path without side effects.
  return require('electron');
}

if (!step('build.mjs', ['--skip-renderer-if-fresh'])) process.exit(1);
const electronPath = ensureElectronBinary();
if (!step('build-native-electron.mjs')) fail('npm start needs the Electron build of better-sqlite3 (see above).');

const extraArgs = process.argv.slice(2);
const env = { ...process.env };
// Set by some shells/tools; it would make the binary behave as plain Node.
delete env.ELECTRON_RUN_AS_NODE;
const child = spawn(electronPath, [ROOT, ...extraArgs], { cwd: ROOT, stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
