/**
 * Shared helpers of the end-to-end specs: start browser mode on a temporary database the
 * way a user does (`node dist/electron/serve.cjs --port 0 --db <tmp> --no-demo`, reading
 * the URL from its first stdout line), call the API with the token, and save screenshots
 * of a screen in both themes under test-results/screenshots/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.join(ROOT, 'test/fixtures');
export const SCREENSHOTS = path.join(ROOT, 'test-results', 'screenshots');

/** The first stdout line of `npm run serve`, exactly as the README documents it. */
export const SERVE_LINE = /^Compaction Studio at (http:\/\/127\.0\.0\.1:(\d+)\/)#token=(\S+)$/;

export interface Studio {
  url: string;
  origin: string;
  token: string;
  dbPath: string;
  /** POST /api/<op> with the token; returns the unwrapped value or throws the error message. */
  call<T = unknown>(op: string, input: unknown): Promise<T>;
  stop(): Promise<void>;
}

export async function startStudio(opts: { demo?: boolean; dbPath?: string } = {}): Promise<Studio> {
  const serve = path.join(ROOT, 'dist/electron/serve.cjs');
  if (!fs.existsSync(serve) || !fs.existsSync(path.join(ROOT, 'dist/renderer/index.html'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-e2e-'));
  const dbPath = opts.dbPath ?? path.join(dir, 'studio.db');
  const args = [serve, '--port', '0', '--db', dbPath, ...(opts.demo ? [] : ['--no-demo'])];
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error(`serve printed no URL within 30 s; stderr:\n${stderr}`)), 30_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}; stderr:\n${stderr}`)));
  });
  const m = SERVE_LINE.exec(firstLine);
  if (!m) throw new Error(`unexpected first line from serve: ${JSON.stringify(firstLine)}`);
  const origin = m[1].replace(/\/$/, '');
  const token = m[3];
  return {
    url: `${m[1]}#token=${token}`,
    origin,
    token,
    dbPath,
    async call<T>(op: string, input: unknown): Promise<T> {
      const res = await fetch(`${origin}/api/${op}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(input) });
      const body = (await res.json()) as { ok: boolean; value?: T; error?: { message: string } };
      if (!body.ok) throw new Error(`${op}: ${body.error?.message}`);
      return body.value as T;
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Saves the current screen in the dark and the light theme (prefers-color-scheme), then restores dark. */
export async function snap(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    // Let transitions settle after the theme switch.
    await page.waitForTimeout(120);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${scheme}.png`) });
  }
}

/**
 * Collects what must never happen in the window: uncaught errors and Content-Security-Policy
 * violations (reported on the console by Chromium).
 */
export function watchPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    const text = m.text();
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(text)) problems.push(`csp: ${text}`);
  });
  return problems;
}
