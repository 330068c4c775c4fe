/**
 * The Sweeps tab end to end, in Chromium against browser mode: the real spotter transcript
 * imported and swept by the real CLI (`sweep --strategy dag --grid freshTailCount=8,32 --grid
 * leafChunkTokens=10000,20000 --replay`, 4 parameter points) into the database the server then
 * opens; the chart shows the 4 points and the Pareto front, hover reads a point out, a click
 * opens that point's variant (the Variants tab, its row current). Screens in both themes
 * under test-results/screenshots/.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { OperationResults } from '../../shared/contract.js';
import { FIXTURES, ROOT, snap, startStudio, watchPageProblems, type Studio } from './studio.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let studio: Studio;
let dir: string;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-sweep-e2e-'));
  const db = path.join(dir, 'studio.db');
  const cli = (args: string[]) => execFileSync(path.join(ROOT, 'node_modules/.bin/tsx'), ['electron/cli/main.ts', ...args, '--db', db], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  cli(['import', SPOTTER, '--json']);
  cli(['sweep', '--strategy', 'dag', '--grid', 'freshTailCount=8,32', '--grid', 'leafChunkTokens=10000,20000', '--replay', '--json']);
  studio = await startStudio({ dbPath: db });
});
test.afterAll(async () => {
  await studio?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('sweeps: the chart of a CLI sweep, a point hovered and clicked, its variant opens', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.setViewportSize({ width: 1600, height: 1000 });
  const sweeps = await studio.call<OperationResults['listSweeps']>('listSweeps', {});
  expect(sweeps.map((s) => [s.strategy, s.kind, s.points])).toEqual([['dag', 'replay', 4]]);
  const detail = await studio.call<OperationResults['getSweep']>('getSweep', { sweepId: sweeps[0].id });

  await page.goto(studio.url);
  await expect(page.getByTestId('session-item').first()).toContainText('306 turns');
  await page.getByTestId('tab-sweeps').click();
  const chart = page.getByTestId('sweep-chart');
  await expect(chart).toHaveAttribute('data-points', '4');
  const front = Number(await chart.getAttribute('data-front'));
  expect(front).toBeGreaterThanOrEqual(1);
  await expect(page.getByTestId('sweep-rows').locator('tbody tr')).toHaveCount(4);
  await expect(page.getByTestId('sweep-readout')).toContainText(`4 parameter points, ${front} on the Pareto front`);

  // Hover the plot near its right edge: the dearest point is read out with its parameters.
  const over = page.locator('.sweep-chart .u-over');
  const box = (await over.boundingBox())!;
  await page.mouse.move(box.x + box.width - 4, box.y + box.height / 2);
  const readout = page.getByTestId('sweep-readout');
  await expect(readout).toContainText(/freshTailCount=\d+ leafChunkTokens=\d+/);
  const label = (await readout.locator('b').textContent())!;
  await snap(page, 'sweeps-chart');

  // Click it: that point's variant opens in the Variants tab.
  await page.mouse.click(box.x + box.width - 4, box.y + box.height / 2);
  const row = detail.rows.find((r) => Object.entries(r.params).map(([k, v]) => `${k}=${v}`).join(' ') === label)!;
  await expect(page.getByTestId('tab-variants')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId(`variant-row-${row.variantId}`)).toHaveClass(/current/);
  await snap(page, 'sweeps-opened-variant');

  // A row of the table opens its variant too.
  await page.getByTestId('tab-sweeps').click();
  const first = detail.rows[0];
  await page.getByTestId(`sweep-row-${first.index}`).click();
  await expect(page.getByTestId(`variant-row-${first.variantId}`)).toHaveClass(/current/);
  expect(problems).toEqual([]);
});
