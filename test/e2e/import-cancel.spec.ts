/**
 * A large import in the window (browser mode): the upload streams to a temp file, the worker
 * imports it and the header counts its turns from job-progress events; Cancel stops it and
 * nothing is imported. Screenshots of the running import in both themes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { writeTranscript } from '../../bench/import.js';
import { snap, startStudio, watchPageProblems, type Studio } from './studio.js';

let studio: Studio;
let dir: string;
let file: string;

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-e2e-import-'));
  file = path.join(dir, 'generated-300k.jsonl');
  // 300,000 generated turns (~90 MB): long enough to see the count and press Cancel.
  writeTranscript(file, 300_000);
  studio = await startStudio();
});

test.afterAll(async () => {
  await studio?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a large import shows its turn count while the worker writes, and Cancel leaves nothing imported', async ({ page }) => {
  test.setTimeout(180_000);
  const problems = watchPageProblems(page);
  await page.goto(studio.url);
  await expect(page.getByText('No sessions yet')).toBeVisible();
  await page.getByTestId('import-input').setInputFiles(file);
  const count = page.getByTestId('import-progress-count');
  // The worker's count, not the file size shown before the first event.
  await expect(count).toHaveText(/^[\d,]+ turns$/, { timeout: 120_000 });
  // The server answers other calls meanwhile.
  expect(await studio.call<unknown[]>('listSessions', {})).toEqual([]);
  await snap(page, '20-import-progress');
  await page.getByTestId('import-cancel-button').click();
  await expect(page.getByTestId('notice-info')).toContainText('Import of generated-300k.jsonl cancelled', { timeout: 30_000 });
  await expect(page.getByTestId('import-progress')).toHaveCount(0);
  expect(await studio.call<unknown[]>('listSessions', {})).toEqual([]);
  await expect(page.getByText('No sessions yet')).toBeVisible();
  expect(problems).toEqual([]);
});
