/**
 * The Timeline panel end to end, in Chromium against browser mode on a temporary database:
 * the real spotter transcript, its projected timeline, a real Replay (progress, finished
 * timeline with firing markers), a firing clicked → the context as of that call checked
 * against the replayContextAt API, a click on the chart itself, the rolling strategy's note,
 * the overhead fit line, a second replay with another parameter and the first one ticked over
 * it (an extra series, legend entry and totals row), and the layout at 1000×700. Screens in both themes under test-results/screenshots/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { writeTranscript } from '../../bench/import.js';
import { MAX_FIRING_CHIPS } from '../../renderer/plan/firing-chips.js';
import type { OperationResults } from '../../shared/contract.js';
import { FIXTURES, snap, startStudio, watchPageProblems, type Studio } from './studio.js';

/** 306 turns, 152 model calls, one automatic compaction recorded by Claude Code. */
const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let studio: Studio;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  studio = await startStudio();
});
test.afterAll(async () => {
  await studio?.stop();
});

test('timeline: projected, then a real replay; a firing opens the context as of that call', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.goto(studio.url);
  await page.getByTestId('import-input').setInputFiles(SPOTTER);
  await expect(page.getByTestId('session-item').first()).toContainText('306 turns');
  await expect(page.getByTestId('turn-row').first()).toHaveAttribute('data-turn-index', '0');
  await expect(page.getByTestId('strategy-select')).toHaveValue('dag');

  // Before any replay: the projected timeline of the slider parameters.
  await page.getByTestId('tab-timeline').click();
  const panel = page.getByTestId('timeline-panel');
  await expect(panel).toHaveAttribute('data-kind', 'projected');
  await expect(panel).toHaveAttribute('data-calls', '152');
  await expect(page.getByTestId('timeline-kind')).toHaveText('projected');
  await expect(page.locator('[data-testid=timeline-chart] canvas')).toHaveCount(1);
  await expect(page.getByTestId('timeline-totals-variant')).toBeVisible();
  await expect(page.getByTestId('timeline-totals-none')).toBeVisible();
  await snap(page, '20-timeline-projected');

  // Replay for real: the header's progress, then the finished run's timeline.
  await page.getByTestId('replay-button').click();
  await expect(page.getByTestId('compaction-progress')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await expect(panel).toHaveAttribute('data-kind', 'replay');
  await expect(panel).toHaveAttribute('data-status', 'completed');
  const runId = Number(await panel.getAttribute('data-run-id'));
  expect(runId).toBeGreaterThan(0);
  const timeline = await studio.call<OperationResults['getReplayRun']>('getReplayRun', { runId });
  const fires = timeline.events.filter((e) => e.kind === 'fire');
  expect(fires.length).toBeGreaterThan(0);
  await expect(panel).toHaveAttribute('data-firings', String(fires.length));
  expect(Number(await panel.getAttribute('data-firings'))).toBeGreaterThan(0);
  await expect(panel).toHaveAttribute('data-calls', String(timeline.calls.context.length));
  await expect(page.getByTestId('timeline-firing')).toHaveCount(timeline.events.length);
  await expect(page.getByTestId('timeline-totals-source')).toBeVisible();
  await expect(page.getByTestId('timeline-totals-variant')).toContainText(String(timeline.totals.modelCalls));

  // Click the first firing: the context as of that call, as the API reports it.
  const first = fires[0];
  await page.locator(`[data-testid=timeline-firing][data-call="${first.call}"]`).click();
  const at = await studio.call<OperationResults['replayContextAt']>('replayContextAt', { runId, call: first.call });
  const ctx = page.getByTestId('timeline-call-context');
  await expect(ctx).toHaveAttribute('data-call', String(first.call));
  await expect(ctx).toHaveAttribute('data-position', String(at.position));
  await expect(ctx).toHaveAttribute('data-message-count', String(at.messages.length));
  await expect(ctx).toHaveAttribute('data-summaries', String(at.summaries.length));
  expect(at.summaries.length).toBeGreaterThan(0);
  await expect(ctx.locator('[data-testid=context-message][data-origin=summary]').first()).toBeVisible();
  await expect(page.getByTestId('timeline-call-summaries')).toContainText(`s${at.summaries[0].id}`);
  await expect(page.getByTestId('timeline-selected')).toHaveAttribute('data-call', String(first.call));
  await snap(page, '21-timeline-replay-firing');

  // Hover and click on the chart itself: the readout, then the call under the cursor.
  const over = page.locator('[data-testid=timeline-chart] .u-over');
  // Picking the firing scrolled the panel to the context; back up to the chart.
  await panel.evaluate((el) => el.scrollTo(0, 0));
  const box = (await over.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.25, box.y + box.height / 2);
  await expect(page.getByTestId('timeline-hover')).toBeVisible();
  await snap(page, '22-timeline-hover');
  await page.mouse.click(box.x + box.width * 0.25, box.y + box.height / 2);
  const clicked = Number(await page.getByTestId('timeline-hover').getAttribute('data-call'));
  await expect(ctx).toHaveAttribute('data-call', String(clicked));
  expect(clicked).toBeLessThan(first.call + 1);

  // The session's overhead fit and how well it fits, above the chart.
  const usage = await studio.call<OperationResults['sessionUsage']>('sessionUsage', { sessionId: timeline.sessionId });
  const fit = usage.overhead!;
  expect(fit.calls).toBe(102);
  expect(fit.maxErrorPct).toBeCloseTo(4.8, 1);
  const fitLine = page.getByTestId('timeline-fit');
  await expect(fitLine).toHaveAttribute('data-calls', '102');
  await expect(fitLine).toContainText(`context = ${Math.round(fit.a).toLocaleString('en-US')} + ${fit.b.toFixed(3)} × transcript`);
  await expect(fitLine).toContainText('fitted over 102 calls');
  await expect(fitLine).toContainText(`mean error ${fit.meanErrorPct.toFixed(2)}%, max 4.80%`);
  await expect(fitLine).toContainText(`spread ±${Math.round(fit.residualSpread).toLocaleString('en-US')} tokens`);

  // A second replay with another parameter (through the sliders' number field), then the first one ticked over it.
  await page.getByTestId('param-freshTailCount-number').fill('32');
  await page.getByTestId('param-freshTailCount-number').press('Enter');
  await expect(panel).toHaveAttribute('data-kind', 'projected');
  const firstItem = page.locator(`[data-testid=timeline-overlay][data-run-id="${runId}"]`);
  await expect(firstItem).toContainText('dag');
  await expect(firstItem).toContainText(`#${runId}`);
  await page.getByTestId('replay-button').click();
  await expect(panel).toHaveAttribute('data-kind', 'replay', { timeout: 60_000 });
  await expect(panel).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  const secondId = Number(await panel.getAttribute('data-run-id'));
  expect(secondId).toBeGreaterThan(runId);
  const second = page.locator(`[data-testid=timeline-overlay][data-run-id="${secondId}"]`);
  await expect(second).toContainText('freshTailCount 32');
  await expect(second.locator('input')).toBeDisabled();
  await expect(page.getByTestId('timeline-chart')).toHaveAttribute('data-series', '1');
  await firstItem.locator('input').check();
  await expect(page.getByTestId('timeline-chart')).toHaveAttribute('data-series', '2');
  await expect(page.getByTestId('timeline-chart')).toHaveAttribute('data-overlays', String(runId));
  await expect(page.locator('[data-testid=timeline-chart] canvas')).toHaveCount(1);
  await expect(page.locator(`[data-testid=timeline-legend-overlay][data-run-id="${runId}"]`)).toContainText(`#${runId}`);
  const overlayRow = page.getByTestId(`timeline-totals-run-${runId}`);
  await expect(overlayRow).toBeVisible();
  await expect(overlayRow).toContainText(`#${runId}`);
  await expect(overlayRow.locator('td').nth(4)).toHaveText(String(timeline.totals.firings));
  await panel.evaluate((el) => el.scrollTo(0, 0));
  await snap(page, '25-timeline-overlay');
  await overlayRow.scrollIntoViewIfNeeded();
  await snap(page, '26-timeline-overlay-totals');
  // Unticked: back to the main series alone.
  await firstItem.locator('input').uncheck();
  await expect(page.getByTestId('timeline-chart')).toHaveAttribute('data-series', '1');
  await expect(overlayRow).toHaveCount(0);
  await firstItem.locator('input').check();
  await expect(page.getByTestId('timeline-chart')).toHaveAttribute('data-series', '2');

  // A smaller window keeps the panel usable.
  await page.setViewportSize({ width: 1000, height: 700 });
  await page.mouse.move(5, 5);
  await expect(panel).toBeVisible();
  await snap(page, '23-timeline-1000x700');
  await page.setViewportSize({ width: 1440, height: 900 });

  // rolling: manual in its design, so the timeline says how its replay fires.
  await page.getByTestId('strategy-select').selectOption('rolling');
  await panel.evaluate((el) => el.scrollTo(0, 0));
  await expect(panel).toHaveAttribute('data-kind', 'projected');
  await expect(page.getByTestId('timeline-note')).toContainText('manual');
  await snap(page, '24-timeline-rolling-note');

  expect(problems).toEqual([]);
});

test('a window over 4,000 generated turns fires at every call: 200 firing chips and a count of the rest, the chart reaches them all', async ({ page }) => {
  test.setTimeout(120_000);
  const problems = watchPageProblems(page);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-e2e-window-'));
  const file = path.join(dir, 'generated-4k.jsonl');
  writeTranscript(file, 4_000);
  try {
    await page.goto(studio.url);
    await page.getByTestId('import-input').setInputFiles(file);
    await page.getByTestId('session-item').filter({ hasText: '4,000 turns' }).click();
    await page.getByTestId('strategy-select').selectOption('window');
    await page.getByTestId('tab-timeline').click();
    const panel = page.getByTestId('timeline-panel');
    await expect(panel).toHaveAttribute('data-kind', 'projected');
    // Derived from the panel's own count of events (the projection's firings): far more than 200.
    const events = Number(await panel.getAttribute('data-events'));
    expect(events).toBeGreaterThan(MAX_FIRING_CHIPS);
    await expect(page.getByTestId('timeline-firing')).toHaveCount(MAX_FIRING_CHIPS);
    await expect(page.getByTestId('timeline-firings-more')).toContainText(`${(events - MAX_FIRING_CHIPS).toLocaleString('en-US')} more`);
    await page.getByTestId('timeline-firings-more').scrollIntoViewIfNeeded();
    await snap(page, '27-timeline-window-many-firings');
    expect(problems).toEqual([]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
