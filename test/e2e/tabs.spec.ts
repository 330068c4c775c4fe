/**
 * Every tab of the window (DAG, Context, Runs, Timeline, Variants, Compare) on the long real
 * spotter session with real runs behind it (a forced dag pass, replays of four strategies),
 * at 1600×1000 and 1000×700, in both themes: nothing in the header or the side pane is cut
 * off (an element past the pane's right edge that no scrolling container holds), the page
 * never scrolls sideways, the Variants table shows its most useful columns first and the
 * Compare columns fit the pane. Screens `60-…` in both themes under test-results/screenshots/.
 */
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { OperationResults } from '../../shared/contract.js';
import { FIXTURES, snap, startStudio, watchPageProblems, type Studio } from './studio.js';

/** 306 turns, 152 model calls, one automatic compaction recorded by Claude Code at turn 207. */
const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const TABS = ['dag', 'context', 'runs', 'timeline', 'variants', 'compare'] as const;
const SIZES = [
  { width: 1600, height: 1000 },
  { width: 1000, height: 700 },
] as const;

let studio: Studio;
let sessionId: number;
let compared: number[];
test.describe.configure({ mode: 'serial' });

/** Waits for the variant's newest run to leave 'running'. */
async function settled(variantId: number): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const runs = await studio.call<OperationResults['listRuns']>('listRuns', { variantId });
    const last = runs[0];
    if (last && last.status !== 'running') return last.status;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`variant ${variantId}: its run did not finish`);
}

test.beforeAll(async () => {
  studio = await startStudio();
  const fs = await import('node:fs');
  const report = await studio.call<{ sessions: Array<{ id: number }> }>('importText', { fileName: path.basename(SPOTTER), text: fs.readFileSync(SPOTTER, 'utf8') });
  sessionId = report.sessions[0].id;
  // A stored DAG (forced: the session is under dag's trigger), then one replay per strategy.
  const pass = await studio.call<OperationResults['startCompaction']>('startCompaction', { sessionId, strategy: 'dag', params: { leafChunkTokens: 8000 }, force: true });
  expect(await settled(pass.variantId)).toBe('completed');
  compared = [];
  for (const strategy of ['dag', 'rolling', 'masking', 'watermark'] as const) {
    const r = await studio.call<OperationResults['startReplay']>('startReplay', { sessionId, strategy, params: {} });
    expect(await settled(r.variantId)).toBe('completed');
    compared.push(r.variantId);
  }
  await studio.call('renameVariant', { variantId: pass.variantId, name: 'dag 8k leaves, forced pass' });
});
test.afterAll(async () => {
  await studio?.stop();
});

interface CutOff {
  testid: string;
  text: string;
  right: number;
  edge: number;
}

/**
 * Elements drawn past the right edge of `root` that no horizontally scrolling or clipping
 * container between them and `root` holds: what a user sees cut off.
 */
async function cutOff(page: Page, selector: string): Promise<CutOff[]> {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    if (!root) return [];
    const edge = root.getBoundingClientRect().right;
    const out: CutOff[] = [];
    for (const el of root.querySelectorAll<HTMLElement>('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || r.right <= edge + 1) continue;
      let held = false;
      for (let p = el.parentElement; p && p !== root; p = p.parentElement) {
        const ox = getComputedStyle(p).overflowX;
        if (ox !== 'visible') {
          held = true;
          break;
        }
      }
      if (held) continue;
      // Report the outermost element only.
      if (el.parentElement && out.some((o) => o.testid === (el.parentElement!.dataset.testid ?? el.parentElement!.className))) continue;
      out.push({ testid: el.dataset.testid ?? el.className.toString(), text: (el.textContent ?? '').slice(0, 60), right: Math.round(r.right), edge: Math.round(edge) });
    }
    return out;
  }, selector);
}

async function pageOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

test('every tab at 1600×1000 and 1000×700 in both themes: nothing cut off', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.setViewportSize(SIZES[0]);
  await page.goto(studio.url);
  await expect(page.getByTestId('turn-row').first()).toBeVisible();
  // Load the forced dag pass (its stored DAG and runs), tick four replays for Compare.
  await page.getByTestId('tab-variants').click();
  await page.locator('.variant-row', { hasText: 'dag 8k leaves' }).locator('.params-cell').click();
  await expect(page.getByTestId('param-leafChunkTokens')).toHaveValue('8000');
  for (const id of compared) await page.getByTestId(`variant-tick-${id}`).check();

  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const tab of TABS) {
      await page.getByTestId(`tab-${tab}`).click();
      if (tab === 'compare') await expect(page.getByTestId('compare-call')).toBeVisible();
      if (tab === 'timeline') await expect(page.locator('[data-testid=timeline-chart] canvas')).toHaveCount(1);
      await page.waitForTimeout(300);
      const where = `${tab} at ${size.width}x${size.height}`;
      expect(await pageOverflow(page), `${where}: the window scrolls sideways`).toBe(0);
      expect(await cutOff(page, '.header'), `${where}: header`).toEqual([]);
      expect(await cutOff(page, '.pane-body'), `${where}: side pane`).toEqual([]);
      await expect(page.getByTestId(`tab-${tab}`)).toBeInViewport({ ratio: 1 });
      await snap(page, `60-${tab}-${size.width}x${size.height}`);
      if (tab === 'variants') {
        // The most useful columns first: at 1600 px name, strategy, parameters, cost and retention need no sideways scroll.
        const paneRight = (await page.locator('.pane-body').boundingBox())!;
        const heads = page.locator('.variants-table thead th');
        await expect(heads.nth(4)).toHaveText('Cost');
        await expect(heads.nth(5)).toHaveText('Fact ret.');
        if (size.width === 1600) {
          const retention = (await heads.nth(5).boundingBox())!;
          expect(retention.x + retention.width).toBeLessThanOrEqual(paneRight.x + paneRight.width);
        }
        // Scrolled sideways, the name stays (sticky) beside the last columns.
        await page.locator('.variants-scroll').evaluate((el) => (el.scrollLeft = el.scrollWidth));
        const name = (await heads.nth(1).boundingBox())!;
        expect(name.x).toBeGreaterThanOrEqual(paneRight.x);
        await expect(page.locator('.variant-row .name-cell').first()).toBeInViewport({ ratio: 1 });
        await snap(page, `60-variants-${size.width}x${size.height}-scrolled`);
        await page.locator('.variants-scroll').evaluate((el) => (el.scrollLeft = 0));
      }
      if (tab === 'compare') {
        // Six columns (four variants, two baselines) fit the pane's width, wrapping instead of scrolling off.
        const cols = page.locator('[data-testid^=compare-col-]');
        await expect(cols).toHaveCount(6);
        const pane = (await page.locator('.compare-panel').boundingBox())!;
        for (let i = 0; i < 6; i++) {
          const b = (await cols.nth(i).boundingBox())!;
          expect(b.x + b.width, `compare column ${i + 1} at ${size.width}`).toBeLessThanOrEqual(pane.x + pane.width);
        }
        await page.getByTestId('compare-cols').evaluate((el) => el.scrollIntoView({ block: 'start' }));
        await snap(page, `60-compare-${size.width}x${size.height}-columns`);
        await page.getByTestId('compare-diff').evaluate((el) => el.scrollIntoView({ block: 'start' }));
        await snap(page, `60-compare-${size.width}x${size.height}-diff`);
      }
    }
  }
  expect(problems).toEqual([]);
});
