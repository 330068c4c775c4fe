/**
 * What the window says so a researcher is not misled about a design, in Chromium on the real spotter session (306 turns,
 * 140,001 tokens): Compact respects the trigger unless the Force toggle (never hidden, also
 * at 1000×700 with a run's progress in the header) is on; the plan's labels say when a tail
 * grew to keep a tool call with its result (dag's fresh tail, watermark's preserved turns,
 * window's kept ends) and window's description says it keeps keepFirst PLUS maxTurns; a plan
 * with nothing to evict says so; a typed parameter that was clamped says so beside its field.
 * Screens `70-…` in both themes under test-results/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { OperationResults } from '../../shared/contract.js';
import { FIXTURES, snap, startStudio, watchPageProblems, type Studio } from './studio.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let studio: Studio;
let sessionId: number;
test.beforeAll(async () => {
  studio = await startStudio();
  const report = await studio.call<{ sessions: Array<{ id: number }> }>('importText', { fileName: path.basename(SPOTTER), text: fs.readFileSync(SPOTTER, 'utf8') });
  sessionId = report.sessions[0].id;
});
test.afterAll(async () => {
  await studio?.stop();
});

async function setParam(page: Page, name: string, value: number): Promise<void> {
  await page.getByTestId(`param-${name}-number`).fill(String(value));
  await page.getByTestId(`param-${name}-number`).press('Enter');
}

async function scrollTurnsToEnd(page: Page): Promise<void> {
  await page.getByTestId('turn-list').evaluate((el) => el.scrollTo(0, el.scrollHeight));
}

test('Compact follows the trigger; Force is an explicit, always visible choice', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.goto(studio.url);
  await expect(page.getByTestId('turn-row').first()).toBeVisible();
  await expect(page.getByTestId('strategy-select')).toHaveValue('dag');

  // By raw transcript tokens (the context measure, a select), dag's defaults see 140,001 tokens
  // <= 0.75 x 200,000, so the trigger says no; the gauge's "after" is what Compact would leave
  // (nothing), and the note says what Force would run.
  await page.getByTestId('param-contextMeasure').selectOption('transcript');
  const gauge = page.getByTestId('token-gauge');
  await expect(page.getByTestId('trigger-decision')).toHaveAttribute('data-compact', 'false');
  await expect(gauge).toHaveAttribute('data-before', '140001');
  await expect(gauge).toHaveAttribute('data-after', '140001');
  await expect(page.getByTestId('trigger-note')).toHaveText(/^Force would run the \d+ planned step\(s\)$/);
  await expect(page.getByTestId('force-toggle')).not.toBeChecked();
  await expect(page.getByTestId('compact-button')).toHaveText('Compact');
  await snap(page, '70-force-off');

  // Compact without Force: the run is skipped and writes no summary.
  await page.getByTestId('compact-button').click();
  await expect(page.getByTestId('compaction-progress')).toHaveAttribute('data-status', 'skipped', { timeout: 60_000 });
  const variants = await studio.call<OperationResults['listVariants']>('listVariants', { sessionId });
  expect(variants.reduce((n, v) => n + v.summaries, 0)).toBe(0);

  // Force on: the button says so and the gauge's "after" is the plan's.
  await page.getByTestId('force-toggle').check();
  await expect(page.getByTestId('compact-button')).toHaveText('Compact (forced)');
  await expect(page.getByTestId('trigger-note')).toHaveText(/^forced: runs the \d+ planned step\(s\) although the trigger says no$/);
  expect(Number(await gauge.getAttribute('data-after'))).toBeLessThan(140001);

  // 1000×700 with the run's progress in the header: the toggle, its word and the last header control stay in view.
  await page.setViewportSize({ width: 1000, height: 700 });
  await expect(page.getByTestId('compaction-progress')).toBeVisible();
  await expect(page.getByTestId('force-toggle')).toBeInViewport({ ratio: 1 });
  await expect(page.locator('.check-force')).toContainText('Force');
  await expect(page.locator('.check-force')).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId('compact-button')).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId('settings-button')).toBeInViewport({ ratio: 1 });
  // The strategy panel scrolls (dag's eight parameters fill it at 700 px): scrolled to, the note is whole.
  await page.getByTestId('trigger-note').scrollIntoViewIfNeeded();
  await expect(page.getByTestId('trigger-note')).toBeInViewport({ ratio: 1 });
  // The window never scrolls sideways (the side pane's six tabs included).
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
  await expect(page.getByTestId('tab-compare')).toBeInViewport({ ratio: 1 });
  await snap(page, '71-force-on-1000x700');
  expect(problems).toEqual([]);
});

test('labels say when a tail grew, and what window keeps; nothing to evict; clamped input', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.goto(studio.url);
  await expect(page.getByTestId('turn-row').first()).toBeVisible();
  const boundary = page.getByTestId('fresh-tail-boundary');

  // dag: 16 asked; a tool call and its result straddle the 16-turn cut, so the tail starts at 289 (17 turns).
  await scrollTurnsToEnd(page);
  await expect(boundary).toHaveAttribute('data-position', '289');
  await expect(boundary).toContainText('fresh tail: last 17 turns (16 asked, grown to keep a tool call with its result)');
  // 17 asked: no cycle straddles the cut, the plain count.
  await setParam(page, 'freshTailCount', 17);
  await scrollTurnsToEnd(page);
  await expect(boundary).toContainText('fresh tail: last 17 turns protected');
  await snap(page, '72-label-dag');

  // watermark, 8 preserved asked: the watermark moves back one turn to keep a tool cycle whole (297), so 9 turns stay
  // (derived with planFor on the fixture: 7 → "last 7", 8 → "last 9 … (8 asked …)", 9 → "last 9").
  await page.getByTestId('strategy-select').selectOption('watermark');
  await setParam(page, 'preserveRecentTurns', 8);
  await scrollTurnsToEnd(page);
  // The marker stands at 297, above the 9 turns it counts.
  await expect(page.locator('[data-kind=preserved-tail]')).toHaveAttribute('data-position', '297');
  await expect(page.locator('[data-kind=preserved-tail]')).toContainText('last 9 turns preserved (8 asked, grown to keep a tool call with its result)');
  await expect(page.locator('[data-kind=watermark]')).toContainText('watermark after this pass: 297');
  await snap(page, '73-label-watermark');

  // window: the description says keepFirst PLUS maxTurns (and how OpenHands counts); maxTurns 10 keeps 11 (a tool cycle), keepFirst 1 keeps 1.
  await page.getByTestId('strategy-select').selectOption('window');
  const doc = page.getByTestId('strategy-doc');
  await expect(doc).toContainText('keeps the first keepFirst conversation turns PLUS the last maxTurns');
  await expect(doc).toHaveAttribute('title', /OpenHands' max_events 10 = keepFirst 1 \+ maxTurns 9/);
  await page.getByTestId('turn-list').evaluate((el) => el.scrollTo(0, 0));
  await expect(page.locator('[data-kind=kept-window]').first()).toContainText('first 1 turn kept (keepFirst)');
  await scrollTurnsToEnd(page);
  await expect(page.locator('[data-kind=kept-window][data-position="295"]')).toContainText('last 11 turns kept (maxTurns 10, grown to keep a tool call with its result)');
  await snap(page, '74-label-window');

  // dag with a fresh tail longer than the session, far over its trigger: "nothing can be evicted", not "would compact … 0 spans".
  await page.getByTestId('strategy-select').selectOption('dag');
  await setParam(page, 'tokenBudget', 1000);
  await setParam(page, 'freshTailCount', 400);
  const decision = page.getByTestId('trigger-decision');
  await expect(decision).toHaveAttribute('data-compact', 'false');
  await expect(decision).toContainText('Would not compact');
  await expect(decision).toContainText('> threshold 750, but nothing can be evicted: the fresh tail (last 400 turns asked) covers the whole session of 306 turns');
  // The reason names the measure and what it added (the demo reports usage: calibrated by default).
  await expect(decision).toContainText('context 204,528 calibrated tokens (140,001 transcript + 25,421 fixed + 39,106 from the tokenizer ratio 1.279)');
  await expect(page.getByTestId('plan-stats')).toContainText('0 spans');
  await expect(page.getByTestId('trigger-note')).toHaveCount(0);
  await expect(page.getByTestId('token-gauge')).toHaveAttribute('data-after', '140001');
  await page.getByTestId('turn-list').evaluate((el) => el.scrollTo(0, 0));
  await expect(boundary).toHaveAttribute('data-position', '0');
  await expect(boundary).toHaveText(/fresh tail: the whole session, 306 turns \(400 asked\)/);
  await snap(page, '75-nothing-to-evict');
  await page.setViewportSize({ width: 1000, height: 700 });
  // The decision (at most two lines) still shows the words in a 400 px pane, once the strategy panel is scrolled to it.
  await decision.scrollIntoViewIfNeeded();
  await expect(decision).toBeInViewport({ ratio: 1 });
  await snap(page, '76-nothing-to-evict-1000x700');
  await page.setViewportSize({ width: 1440, height: 900 });

  // watermark's hardCapTokens typed as 0: used as 1, and the note beside the field says so.
  await page.getByTestId('strategy-select').selectOption('watermark');
  await setParam(page, 'hardCapTokens', 0);
  await expect(page.getByTestId('param-hardCapTokens-note')).toHaveText('0 is below the minimum 1: using 1');
  await expect(page.getByTestId('param-hardCapTokens-number')).toHaveValue('1');
  await expect(page.getByTestId('param-hardCapTokens-note')).toBeInViewport({ ratio: 1 });
  await snap(page, '77-clamp-note');
  // A value in range clears it.
  await setParam(page, 'hardCapTokens', 80000);
  await expect(page.getByTestId('param-hardCapTokens-note')).toHaveCount(0);
  expect(problems).toEqual([]);
});
