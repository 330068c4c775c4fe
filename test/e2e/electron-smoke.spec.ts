/**
 * Smoke test of the real desktop app through Playwright's `_electron`: the window opens
 * on app://studio/, locked down (context isolation, sandbox, no Node), with exactly the
 * contract on `window.studio`, and shows the demo session. Runs wherever the Electron
 * binary is installed; elsewhere (no download possible) it skips and prints why.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron as electron, expect, test } from '@playwright/test';
import { OPERATIONS } from '../../shared/contract.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ELECTRON_DIR = path.join(ROOT, 'node_modules', 'electron');

/**
 * The Electron executable if it is installed, found the way node_modules/electron/index.js
 * does but WITHOUT its side effect: requiring 'electron' starts a download when missing.
 */
function findElectron(): { path: string } | { reason: string } {
  const pathFile = path.join(ELECTRON_DIR, 'path.txt');
  if (!fs.existsSync(pathFile)) return { reason: 'node_modules/electron/path.txt is missing: the binary was never downloaded (github.com is unreachable here; ELECTRON_SKIP_BINARY_DOWNLOAD=1 installs)' };
  const executable = path.join(ELECTRON_DIR, 'dist', fs.readFileSync(pathFile, 'utf8'));
  if (!fs.existsSync(executable)) return { reason: `${executable} does not exist` };
  return { path: executable };
}

const found = findElectron();
const hasElectron = 'path' in found;
if (!hasElectron) console.log(`electron-smoke: skipped: Electron binary not downloadable here: ${found.reason}`);

test.describe('the desktop app', () => {
  test.skip(!hasElectron, `Electron binary not downloadable here: ${'reason' in found ? found.reason : ''}`);

  let userData: string;
  test.beforeAll(() => {
    userData = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-electron-'));
    // The app loads the Electron build of better-sqlite3 (a no-op when it is up to date).
    const native = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-native-electron.mjs')], { cwd: ROOT, encoding: 'utf8' });
    expect(native.status, native.stderr).toBe(0);
    expect(fs.existsSync(path.join(ROOT, 'dist', 'electron', 'main.cjs')), 'run npm run build first').toBe(true);
  });
  test.afterAll(() => {
    fs.rmSync(userData, { recursive: true, force: true });
  });

  test('opens a locked-down window with exactly the contract and the demo session (skipped where the Electron binary cannot be downloaded)', async () => {
    const app = await electron.launch({
      executablePath: (found as { path: string }).path,
      args: [ROOT],
      cwd: ROOT,
      env: { ...process.env, COMPACTION_STUDIO_USER_DATA: userData, COMPACTION_STUDIO_DB: path.join(userData, 'studio.db') },
    });
    try {
      const page = await app.firstWindow();
      await page.waitForLoadState('domcontentloaded');
      expect(page.url()).toBe('app://studio/index.html');

      // One function per operation plus the two helpers; no Node in the page (context
      // isolation, sandbox, no nodeIntegration).
      const bridge = await page.evaluate(() => Object.keys((window as unknown as { studio: object }).studio).sort());
      expect(bridge).toEqual([...OPERATIONS, 'onEvent', 'pathForFile'].sort());
      expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
      expect(await page.evaluate(() => typeof (globalThis as { process?: unknown }).process)).toBe('undefined');
      expect(await page.evaluate(() => typeof (globalThis as { module?: unknown }).module)).toBe('undefined');

      const sessions = await page.evaluate(() => (window as unknown as { studio: { listSessions(i: object): Promise<{ ok: boolean; value: unknown[] }> } }).studio.listSessions({}));
      expect(sessions.ok).toBe(true);
      expect(sessions.value.length).toBeGreaterThan(0);
      await expect(page.getByTestId('session-item').first()).toBeVisible();

      // importPaths reads only what the user picked or dropped: a path named by the page is refused.
      const byPath = await page.evaluate(() => (window as unknown as { studio: { importPaths(i: object): Promise<{ ok: boolean; error?: { code: string } }> } }).studio.importPaths({ paths: ['/etc/hostname'] }));
      expect(byPath).toMatchObject({ ok: false, error: { code: 'forbidden' } });

      // New windows are denied (http(s) links go to the system browser instead; not tried
      // here, a test should not open the user's browser).
      expect(await page.evaluate(() => window.open('about:blank') === null)).toBe(true);
      fs.mkdirSync(path.join(ROOT, 'test-results', 'screenshots'), { recursive: true });
      await page.screenshot({ path: path.join(ROOT, 'test-results', 'screenshots', 'electron-window.png') });
    } finally {
      await app.close();
    }
  });
});
