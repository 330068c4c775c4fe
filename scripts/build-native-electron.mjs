#!/usr/bin/env node
/**
 * Builds the Electron copy of better-sqlite3 into native/electron/better_sqlite3.node
 * (git-ignored), leaving node_modules/better-sqlite3 as the Node build the tests, the
 * CLI and browser mode use. See TOOLCHAIN.md, "One install, two runtimes".
 *
 *   node scripts/build-native-electron.mjs [--force]
 *
 * 1. prebuild-install --runtime=electron --target=<electron version> (a download), else
 * 2. node-gyp against Electron's headers (a download and a ~80 s compile),
 * in a scratch copy of the package, so a failure never touches node_modules. The result
 * must report Electron's ABI (node_modules/electron/abi_version): `~/.npmrc` may set
 * nodedir, which makes node-gyp silently build for Node, so npm_config_nodedir is unset
 * and the ABI is checked. Up to date (same Electron, same better-sqlite3, right ABI): no-op.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = path.join(ROOT, 'native', 'electron');
const OUT_FILE = path.join(OUT_DIR, 'better_sqlite3.node');
const STAMP_FILE = path.join(OUT_DIR, 'build-info.json');
const PKG_DIR = path.join(ROOT, 'node_modules', 'better-sqlite3');
const force = process.argv.includes('--force');

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const log = (message) => console.error(`native: ${message}`);

/**
 * The NODE_MODULE_VERSION a .node file was built for, found without Electron: loading
 * it into this Node either works (it is Node's own ABI) or fails with a message that
 * names the ABI it was compiled against.
 */
export function abiOf(file) {
  try {
    process.dlopen({ exports: {} }, file);
    return Number(process.versions.modules);
  } catch (err) {
    const match = /NODE_MODULE_VERSION (\d+)/.exec(String(err && err.message));
    return match ? Number(match[1]) : null;
  }
}

function run(command, args, cwd, env) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 15 * 60 * 1000 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  // The first error lines say why (a DNS failure, a 404); the last ones are node-gyp's boilerplate.
  const errorLines = output.split('\n').filter((l) => /err|error|fail/i.test(l) && !/gyp ERR! (System|command|cwd|node -v|node-gyp -v|not ok)/.test(l));
  const why = (errorLines.length > 0 ? errorLines : output.split('\n')).slice(0, 4).join('\n');
  return { ok: result.status === 0, why: result.error ? result.error.message : why || `exit code ${result.status}` };
}

function main() {
  const electronVersion = readJson(path.join(ROOT, 'node_modules', 'electron', 'package.json')).version;
  const expectedAbi = Number(fs.readFileSync(path.join(ROOT, 'node_modules', 'electron', 'abi_version'), 'utf8').trim());
  const sqliteVersion = readJson(path.join(PKG_DIR, 'package.json')).version;

  if (!force && fs.existsSync(OUT_FILE) && fs.existsSync(STAMP_FILE)) {
    const stamp = readJson(STAMP_FILE);
    if (stamp.electron === electronVersion && stamp.betterSqlite3 === sqliteVersion && abiOf(OUT_FILE) === expectedAbi) {
      log(`up to date (better-sqlite3 ${sqliteVersion} for Electron ${electronVersion}, ABI ${expectedAbi})`);
      return 0;
    }
  }

  // A scratch copy of the package without its Node build: both tools write build/Release there.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-native-'));
  const pkg = path.join(scratch, 'better-sqlite3');
  fs.cpSync(PKG_DIR, pkg, { recursive: true, filter: (src) => !src.startsWith(path.join(PKG_DIR, 'build')) });
  const built = path.join(pkg, 'build', 'Release', 'better_sqlite3.node');

  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    // nodedir (from ~/.npmrc) and any npm target/runtime settings would override ours.
    if (/^npm_config_(nodedir|target|runtime|disturl|dist_url)$/i.test(key)) delete env[key];
  }
  const bin = (...parts) => path.join(ROOT, 'node_modules', ...parts);
  const failures = [];

  log(`fetching a prebuilt better-sqlite3 ${sqliteVersion} for Electron ${electronVersion} (ABI ${expectedAbi})…`);
  let result = run(process.execPath, [bin('prebuild-install', 'bin.js'), '--runtime=electron', `--target=${electronVersion}`, `--arch=${process.arch}`, `--platform=${process.platform}`], pkg, env);
  if (!result.ok || !fs.existsSync(built)) {
    failures.push(`prebuilt download: ${result.why}`);
    log('no prebuilt binary; compiling against Electron headers with node-gyp (about a minute)…');
    result = run(
      process.execPath,
      [bin('node-gyp', 'bin', 'node-gyp.js'), 'rebuild', '--release', `--target=${electronVersion}`, `--arch=${process.arch}`, '--dist-url=https://electronjs.org/headers'],
      pkg,
      env,
    );
    if (!result.ok || !fs.existsSync(built)) failures.push(`node-gyp: ${result.why}`);
  }

  try {
    if (!fs.existsSync(built)) {
      console.error(
        [
          `Could not build better-sqlite3 for Electron ${electronVersion}.`,
          ...failures.map((f) => `  - ${f.replace(/\n/g, '\n    ')}`),
          'This step downloads once (prebuilt binaries from github.com, or Electron headers from electronjs.org);',
          'if you are offline or behind a proxy, retry when connected.',
          'Meanwhile the same app runs in your browser without Electron: npm run serve',
        ].join('\n'),
      );
      return 1;
    }
    const abi = abiOf(built);
    if (abi !== expectedAbi) {
      console.error(`The build reports ABI ${abi}, but Electron ${electronVersion} needs ${expectedAbi} (a nodedir setting in ~/.npmrc or npm_config_* may have forced Node's headers). Nothing was installed.`);
      return 1;
    }
    fs.mkdirSync(OUT_DIR, { recursive: true });
    fs.copyFileSync(built, OUT_FILE);
    fs.writeFileSync(STAMP_FILE, `${JSON.stringify({ electron: electronVersion, betterSqlite3: sqliteVersion, abi, builtAt: new Date().toISOString() }, null, 2)}\n`);
    log(`built ${path.relative(ROOT, OUT_FILE)} (ABI ${abi})`);
    return 0;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(main());
