/**
 * The variant table end to end, in Chromium against browser mode on the real
 * spotter session: dragging sliders makes no variant (counted in the SQLite file itself,
 * hidden rows included); Compact, Save and Replay make them; the table loads, renames,
 * ticks for Compare, duplicates as a draft and deletes; 200 variants paint in one frame
 * (printed, not asserted). Screens in both themes under test-results/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, test, type Page } from '@playwright/test';
import { FIXTURES, snap, startStudio, watchPageProblems, type Studio } from './studio.js';
// window.__studioPerf (the in-page probes) is declared there.
import type {} from '../../renderer/perf.js';

/** 306 turns, 140,001 tokens (o200k). */
const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let studio: Studio;
let sessionId: number;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  studio = await startStudio();
  const report = await studio.call<{ sessions: Array<{ id: number }> }>('importText', { fileName: path.basename(SPOTTER), text: fs.readFileSync(SPOTTER, 'utf8') });
  sessionId = report.sessions[0].id;
});
test.afterAll(async () => {
  await studio?.stop();
});

/** Every variant row in the database file, hidden ones included. */
function variantRows(): number {
  const db = new Database(studio.dbPath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM variants').pluck().get() as number;
  } finally {
    db.close();
  }
}

/** Drags a range input's thumb across its track in steps, pausing past the 220 ms settle time at each. */
async function dragSlider(page: Page, testId: string, stops: number[]): Promise<void> {
  const box = (await page.getByTestId(testId).boundingBox())!;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * stops[0], y);
  await page.mouse.down();
  for (const f of stops.slice(1)) {
    await page.mouse.move(box.x + box.width * f, y, { steps: 4 });
    await page.waitForTimeout(300);
  }
  await page.mouse.up();
}

test('sliders make drafts; Compact, Save and Replay make variants; the table loads, renames, compares, duplicates and deletes', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.goto(studio.url);
  await expect(page.getByTestId('turn-row').first()).toBeVisible();
  await expect(page.getByTestId('strategy-select')).toHaveValue('dag');

  // Drag two sliders through several values, each held past the settle time: no variant row anywhere.
  await dragSlider(page, 'param-freshTailCount', [0.1, 0.3, 0.5, 0.2]);
  await dragSlider(page, 'param-leafChunkTokens', [0.2, 0.6, 0.4]);
  await page.waitForTimeout(500);
  expect(variantRows()).toBe(0);
  expect(await studio.call<unknown[]>('listVariants', { sessionId })).toEqual([]);

  await page.getByTestId('tab-variants').click();
  await expect(page.getByTestId('variants-draft')).toBeVisible();
  await expect(page.getByTestId('variants-panel')).toContainText('No variants yet');
  // The Context view of a draft is the session under the strategy, without creating anything.
  await page.getByTestId('tab-context').click();
  await expect(page.getByTestId('context-view')).toHaveAttribute('data-total-tokens', /^\d+$/);
  expect(variantRows()).toBe(0);

  // Back to known values: 8,000-token leaves, fresh tail 16, then Compact creates exactly one variant.
  await page.getByTestId('param-leafChunkTokens-number').fill('8000');
  await page.getByTestId('param-leafChunkTokens-number').press('Enter');
  await page.getByTestId('param-freshTailCount-number').fill('16');
  await page.getByTestId('param-freshTailCount-number').press('Enter');
  // Under dag's trigger (140,001 < 150,000 tokens): forced, so the pass writes summaries.
  await page.getByTestId('force-toggle').check();
  await page.getByTestId('compact-button').click();
  await expect(page.getByTestId('compaction-progress')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  expect(variantRows()).toBe(1);
  const [dag] = await studio.call<Array<{ id: number; summaries: number }>>('listVariants', { sessionId });

  // A second choice, saved without running it.
  await page.getByTestId('param-freshTailCount-number').fill('32');
  await page.getByTestId('param-freshTailCount-number').press('Enter');
  await page.getByTestId('tab-variants').click();
  await expect(page.getByTestId('variant-save')).toBeEnabled();
  await page.getByTestId('variant-save').click();
  await expect(page.getByTestId('variants-table').locator('tr.variant-row')).toHaveCount(2);
  expect(variantRows()).toBe(2);

  // A replay of masking: its row carries firings, tokens sent, summarizer calls and cost.
  await page.getByTestId('strategy-select').selectOption('masking');
  await page.getByTestId('replay-button').click();
  await expect(page.getByTestId('compaction-progress')).toHaveAttribute('data-status', 'completed', { timeout: 90_000 });
  await page.getByTestId('tab-variants').click();
  await expect(page.getByTestId('variants-table').locator('tr.variant-row')).toHaveCount(3);
  const listed = await studio.call<Array<{ id: number; strategy: string; firings: number | null; costUsd: number | null; name: string | null; retention: Record<string, { kept: number; total: number }> | null }>>('listVariants', { sessionId });
  const masking = listed.find((v) => v.strategy === 'masking')!;
  expect(masking.firings).not.toBeNull();
  await expect(page.getByTestId(`variant-row-${masking.id}`)).toContainText('replay completed');
  // Its retention comes from the replay's firing ledgers (masked tool results count as compacted), as the API says.
  const r = Object.values(masking.retention!);
  const kept = r.reduce((n, x) => n + x.kept, 0);
  const total = r.reduce((n, x) => n + x.total, 0);
  expect(total).toBeGreaterThan(0);
  await expect(page.getByTestId(`variant-retention-${masking.id}`)).toHaveText(`${Math.round((100 * kept) / total)}%`);

  // Rename the compacted one inline.
  await page.getByTestId(`variant-name-${dag.id}`).click();
  await page.getByTestId(`variant-name-input-${dag.id}`).fill('baseline dag');
  await page.getByTestId(`variant-name-input-${dag.id}`).press('Enter');
  await expect(page.getByTestId(`variant-name-${dag.id}`)).toHaveText('baseline dag');
  expect((await studio.call<Array<{ id: number; name: string | null }>>('listVariants', { sessionId })).find((v) => v.id === dag.id)?.name).toBe('baseline dag');

  // Load it: strategy and parameters come back, and its runs show.
  await page.getByTestId(`variant-row-${dag.id}`).locator('td.params-cell').click();
  await expect(page.getByTestId('strategy-select')).toHaveValue('dag');
  await expect(page.getByTestId('param-leafChunkTokens')).toHaveValue('8000');
  await expect(page.getByTestId('param-freshTailCount')).toHaveValue('16');
  await expect(page.getByTestId(`variant-row-${dag.id}`)).toHaveClass(/current/);

  // Tick two for Compare.
  await expect(page.getByTestId('variant-compare')).toBeDisabled();
  await page.getByTestId(`variant-tick-${dag.id}`).check();
  await page.getByTestId(`variant-tick-${masking.id}`).check();
  await expect(page.getByTestId('variant-compare')).toHaveText('Compare (2)');
  await snap(page, '40-variant-table');
  await page.getByTestId('variant-compare').click();
  // The Compare tab opens with the two ticked variants picked.
  await expect(page.getByTestId('compare-panel')).toBeVisible();
  await expect(page.getByTestId(`compare-pick-${dag.id}`)).toBeChecked();
  await expect(page.getByTestId(`compare-pick-${masking.id}`)).toBeChecked();
  await expect(page.getByTestId(`compare-totals-v${dag.id}`)).toBeVisible();

  // Duplicate as a draft: the masking parameters load, nothing is created.
  await page.getByTestId('tab-variants').click();
  await page.getByTestId(`variant-duplicate-${dag.id}`).click();
  await expect(page.getByTestId('strategy-select')).toHaveValue('dag');
  await page.getByTestId('param-freshTailCount-number').fill('20');
  await page.getByTestId('param-freshTailCount-number').press('Enter');
  await expect(page.getByTestId('variants-draft')).toBeVisible();
  expect(variantRows()).toBe(3);

  // Delete the compacted one, after the confirmation click.
  await page.getByTestId(`variant-delete-${dag.id}`).click();
  await page.getByTestId(`variant-delete-confirm-${dag.id}`).click();
  await expect(page.getByTestId(`variant-row-${dag.id}`)).toHaveCount(0);
  expect(variantRows()).toBe(2);
  expect(problems).toEqual([]);
});

test('a session with 200 variants: the table paints in one frame', async ({ page }) => {
  // 200 saved variants: dag with fresh tails 1..200 (freshTailCount is an integer, default 16).
  const existing = (await studio.call<unknown[]>('listVariants', { sessionId })).length;
  for (let n = 1; n <= 200; n++) await studio.call('saveVariant', { sessionId, strategy: 'dag', params: { freshTailCount: n }, name: `tail ${n}` });
  const total = (await studio.call<unknown[]>('listVariants', { sessionId })).length;
  // 16 is the default: saving it names the variant with the default parameters, new either way.
  expect(total).toBe(existing + 200);

  await page.goto(studio.url);
  await expect(page.getByTestId('turn-row').first()).toBeVisible();
  await page.getByTestId('tab-variants').click();
  await expect(page.getByTestId('variants-panel')).toHaveAttribute('data-count', String(total));
  // Virtualized: only the rows in view and a few more are in the DOM.
  const table = page.getByTestId('variants-table');
  const rendered = Number(await table.getAttribute('data-rendered'));
  expect(rendered).toBeGreaterThan(10);
  expect(rendered).toBeLessThan(60);
  await expect(table.locator('tr.variant-row')).toHaveCount(rendered);
  await expect.poll(() => page.evaluate(() => window.__studioPerf?.variantTablePaint?.rows ?? 0)).toBe(total);
  const first = (await page.evaluate(() => window.__studioPerf!.variantTablePaint))!;
  // Then with the data in hand (the list cached): leave the tab and come back, five times.
  const warm: Array<{ commitMs: number; paintMs: number }> = [];
  for (let i = 0; i < 5; i++) {
    await page.getByTestId('tab-runs').click();
    await page.evaluate(() => (window.__studioPerf!.variantTablePaint = null));
    await page.getByTestId('tab-variants').click();
    await expect.poll(() => page.evaluate(() => window.__studioPerf?.variantTablePaint?.rows ?? 0)).toBe(total);
    warm.push((await page.evaluate(() => window.__studioPerf!.variantTablePaint))!);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `variant table, ${total} rows (one frame = 16.7 ms): first list data -> DOM ${first.commitMs.toFixed(1)} ms, -> painted ${first.paintMs.toFixed(1)} ms; ` +
      `cached data, median of 5: -> DOM ${median(warm.map((w) => w.commitMs)).toFixed(1)} ms, -> painted ${median(warm.map((w) => w.paintMs)).toFixed(1)} ms`,
  );
  // Scrolled to the end: the last variant is there, under the sticky header, its tick working.
  await page.locator('.variants-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight));
  const listed = await studio.call<Array<{ id: number; name: string | null }>>('listVariants', { sessionId });
  const last = listed[listed.length - 1];
  await expect(page.getByTestId(`variant-row-${last.id}`)).toBeInViewport();
  await expect(table.locator('thead th').nth(1)).toBeInViewport();
  await page.getByTestId(`variant-tick-${last.id}`).check();
  await expect(page.getByTestId('variant-compare')).toHaveText('Compare (1)');
  await page.getByTestId(`variant-tick-${last.id}`).uncheck();
  // A rename in progress survives scrolling its row out of view (the focused row stays rendered).
  await page.getByTestId(`variant-name-${last.id}`).click();
  await page.getByTestId(`variant-name-input-${last.id}`).fill('renamed far down');
  await page.locator('.variants-scroll').evaluate((el) => (el.scrollTop = 0));
  await expect(page.getByTestId(`variant-row-${listed[0].id}`)).toBeInViewport();
  await expect(page.getByTestId(`variant-name-input-${last.id}`)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await studio.call<Array<{ id: number; name: string | null }>>('listVariants', { sessionId })).find((v) => v.id === last.id)?.name).toBe('renamed far down');
  await snap(page, '41-variant-table-200');
});
