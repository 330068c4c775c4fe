/**
 * The Compare tab end to end, in Chromium against browser mode on a temporary database: the
 * real spotter transcript, two variants made by replaying them from the window (dag, then
 * rolling), a third made by "compact as of call 102" (startCompaction's asOfCall), all three
 * ticked in the tab's picker beside the two baselines; the call picked with the number
 * field and by a click on the chart; both contexts and the diff checked against the
 * compareVariants API. Screens in both themes under test-results/screenshots/.
 */
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { OperationResults } from '../../shared/contract.js';
import { FIXTURES, snap, startStudio, watchPageProblems, type Studio } from './studio.js';

/** 306 turns, 152 model calls; Claude Code compacted before call 102 (turn 207). */
const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let studio: Studio;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  studio = await startStudio();
});
test.afterAll(async () => {
  await studio?.stop();
});

test('compare: two replayed variants and an as-of-call pass side by side, a call picked, contexts and diff', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.goto(studio.url);
  await page.getByTestId('import-input').setInputFiles(SPOTTER);
  await expect(page.getByTestId('session-item').first()).toContainText('306 turns');
  const sessionId = (await studio.call<OperationResults['listSessions']>('listSessions', {}))[0].id;

  // Two variants, each replayed from the window.
  for (const strategy of ['dag', 'rolling']) {
    await page.getByTestId('strategy-select').selectOption(strategy);
    await page.getByTestId('replay-button').click();
    await expect(page.getByTestId('compaction-progress')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
    await expect(page.getByTestId('timeline-panel')).toHaveAttribute('data-kind', 'replay');
  }
  // A one-shot dag pass over the turns before call 102, the point where Claude Code compacted.
  await studio.call('startCompaction', { sessionId, strategy: 'dag', params: {}, force: true, asOfCall: 102 });
  await expect.poll(async () => (await studio.call<OperationResults['listVariants']>('listVariants', { sessionId })).find((v) => v.params.asOfCall === 102)?.summaries ?? 0, { timeout: 30_000 }).toBeGreaterThan(0);
  const variants = await studio.call<OperationResults['listVariants']>('listVariants', { sessionId });
  const ids = ['dag', 'rolling'].map((s) => variants.find((v) => v.strategy === s && v.params.asOfCall === undefined && v.runs > 0)!.id);
  const asOf = variants.find((v) => v.params.asOfCall === 102)!.id;

  await page.getByTestId('tab-compare').click();
  const panel = page.getByTestId('compare-panel');
  await expect(panel).toBeVisible();
  for (const id of [...ids, asOf]) await page.getByTestId(`compare-pick-${id}`).check();
  await expect(page.getByTestId(`compare-totals-v${ids[0]}`)).toHaveAttribute('data-status', 'replayed');
  await expect(page.getByTestId(`compare-totals-v${ids[1]}`)).toHaveAttribute('data-status', 'replayed');
  await expect(page.getByTestId(`compare-totals-v${asOf}`)).toHaveAttribute('data-status', 'one-shot');
  await expect(page.getByTestId('compare-totals-none')).toBeVisible();
  await expect(page.getByTestId('compare-totals-source')).toBeVisible();
  await expect(page.locator('[data-testid=compare-chart] canvas')).toHaveCount(1);
  // Two replayed variants + the two baselines.
  await expect(page.getByTestId('compare-chart')).toHaveAttribute('data-series', '4');

  // It opens where Claude Code compacted: call 102; every column's context matches the API.
  await expect(page.getByTestId('compare-call')).toHaveAttribute('data-call', '102');
  const at102 = await studio.call<OperationResults['compareVariants']>('compareVariants', { sessionId, variantIds: [...ids, asOf] });
  expect(at102.context!.call).toBe(102);
  for (const col of at102.context!.columns) {
    await expect(page.getByTestId(`compare-col-${col.key}`)).toBeVisible();
    for (const [fate, n] of Object.entries(col.counts)) {
      if (n > 0) await expect(page.getByTestId(`compare-count-${col.key}-${fate}`)).toHaveText(`${fate} ${n}`);
      else await expect(page.getByTestId(`compare-count-${col.key}-${fate}`)).toHaveCount(0);
    }
  }
  await expect(page.getByTestId('compare-diff-row')).toHaveCount(at102.context!.diff.filter((r) => !r.same).length);
  await expect(page.getByTestId('compare-same-span')).toHaveCount(at102.context!.sameSpan.length);
  await snap(page, '40-compare-call-102');

  // Pick call 120 with the number field: the contexts follow.
  await page.getByTestId('compare-call-input').fill('120');
  await expect(page.getByTestId('compare-call')).toHaveAttribute('data-call', '120');
  const at120 = await studio.call<OperationResults['compareVariants']>('compareVariants', { sessionId, variantIds: [...ids, asOf], call: 120 });
  await expect(page.getByTestId(`compare-count-v${ids[1]}-verbatim`)).toHaveText(`verbatim ${at120.context!.columns.find((c) => c.key === `v${ids[1]}`)!.counts.verbatim}`);
  await expect(page.getByTestId('compare-diff-row')).toHaveCount(at120.context!.diff.filter((r) => !r.same).length);

  // A click on the chart picks the call under the cursor (near the start: before any firing).
  const box = (await page.locator('[data-testid=compare-chart] .u-over').boundingBox())!;
  await page.mouse.click(box.x + box.width * 0.1, box.y + box.height / 2);
  await expect.poll(async () => Number(await page.getByTestId('compare-call').getAttribute('data-call'))).toBeLessThan(30);
  // Before any compaction every column sends every turn as recorded: no difference.
  await expect(page.getByTestId('compare-diff-row')).toHaveCount(0);
  await page.getByTestId('compare-call-input').fill('120');
  await expect(page.getByTestId('compare-call')).toHaveAttribute('data-call', '120');
  await snap(page, '41-compare-call-120');
  await page.getByTestId('compare-diff').scrollIntoViewIfNeeded();
  await snap(page, '42-compare-contexts-call-120');

  // Export: the JSON download is the comparison document.
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('compare-export-json').click()]);
  expect(file.suggestedFilename()).toMatch(/-compare-v\d+-\d+-\d+-call120\.json$/);
  expect(problems).toEqual([]);
});
