/**
 * The loss ledger in the window, in Chromium against browser mode on the real
 * spotter transcript: a dag pass's DAG node shows its ledger in the inspector; a dag
 * replay's firing on the Timeline shows the facts it lost and Claude Code's own compaction
 * its baseline ledger; the search finds a summary hit beside the turn hits; Compare shows
 * the facts table for dag and rolling. Every figure is read from the API first. Screens in
 * both themes under test-results/screenshots/.
 */
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { OperationResults } from '../../shared/contract.js';
import { FIXTURES, snap, startStudio, watchPageProblems, type Studio } from './studio.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let studio: Studio;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  studio = await startStudio();
});
test.afterAll(async () => {
  await studio?.stop();
});

test('the ledger in the DAG inspector and on the Timeline, summary search hits, and the facts table in Compare', async ({ page }) => {
  // Three runs (a pass, two replays) on 2 shared cores.
  test.setTimeout(300_000);
  const problems = watchPageProblems(page);
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.goto(studio.url);
  await page.getByTestId('import-input').setInputFiles(SPOTTER);
  await expect(page.getByTestId('session-item').first()).toContainText('306 turns');
  const sessionId = (await studio.call<OperationResults['listSessions']>('listSessions', {}))[0].id;

  // 1. A dag pass; its condensed node in the DAG; the inspector shows the node's ledger.
  await page.getByTestId('strategy-select').selectOption('dag');
  await page.getByTestId('force-toggle').check();
  await page.getByTestId('compact-button').click();
  await expect(page.getByTestId('compaction-progress')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  const passVariant = (await studio.call<OperationResults['listVariants']>('listVariants', { sessionId })).find((v) => v.strategy === 'dag')!;
  const summaries = await studio.call<OperationResults['listSummaries']>('listSummaries', { variantId: passVariant.id });
  const top = summaries.filter((s) => !s.compacted).sort((a, b) => b.depth - a.depth)[0];
  await page.getByTestId('tab-dag').click();
  await page.locator(`[data-testid=dag-node][data-node-id="s${top.id}"]`).click();
  const ledger = page.getByTestId('inspector-ledger');
  await expect(ledger).toBeVisible();
  const kept = Object.values(top.ledger!.retention).reduce((n, r) => n + r.kept, 0);
  const total = Object.values(top.ledger!.retention).reduce((n, r) => n + r.total, 0);
  await expect(ledger).toHaveAttribute('data-kept', String(kept));
  await expect(ledger).toHaveAttribute('data-total', String(total));
  await expect(ledger.getByTestId('ledger-bar')).toHaveCount(Object.values(top.ledger!.retention).filter((r) => r.total > 0).length);
  if (top.ledger!.lost.length > 0) await expect(page.getByTestId('inspector-ledger-lost').locator('li').first()).toContainText(top.ledger!.lost[0].text);
  await ledger.scrollIntoViewIfNeeded();
  await snap(page, '50-ledger-dag-inspector');

  // 2. A dag replay: select its firing on the Timeline and read its lost facts; then Claude Code's compaction.
  await page.getByTestId('replay-button').click();
  await expect(page.getByTestId('compaction-progress')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await page.getByTestId('tab-timeline').click();
  await expect(page.getByTestId('timeline-panel')).toHaveAttribute('data-kind', 'replay');
  const runId = Number(await page.getByTestId('timeline-panel').getAttribute('data-run-id'));
  const tl = await studio.call<OperationResults['getReplayRun']>('getReplayRun', { runId });
  const firing = tl.events[0];
  await page.locator(`[data-testid=timeline-firing][data-call="${firing.call}"]`).click();
  const fl = page.getByTestId('timeline-firing-ledger');
  await expect(fl).toBeVisible();
  await expect(fl).toContainText(`Firing at call ${firing.call}`);
  const firingKept = Object.values(firing.ledger!.retention).reduce((n, r) => n + r.kept, 0);
  const firingTotal = Object.values(firing.ledger!.retention).reduce((n, r) => n + r.total, 0);
  await expect(fl).toHaveAttribute('data-kept', String(firingKept));
  await expect(fl).toHaveAttribute('data-total', String(firingTotal));
  // With the fact-based summarizer dag's firing keeps every fact of turns 0-142 (test/node/firing-ledger.test.ts): "lost: nothing".
  if (firing.ledger!.lost.length > 0) await expect(page.getByTestId('timeline-firing-ledger-lost').locator('li').first()).toContainText(firing.ledger!.lost[0].text);
  else await expect(fl).toContainText('lost: nothing');
  await fl.scrollIntoViewIfNeeded();
  await snap(page, '51-ledger-timeline-firing');
  const src = tl.baselines.source.events[0];
  await page.locator(`[data-testid=timeline-source-compaction][data-call="${src.call}"]`).click();
  const sl = page.getByTestId('timeline-source-ledger');
  // Claude Code's summary of turns 0-206 keeps 41 of the 101 facts (test/node/summary-ledger.test.ts).
  await expect(sl).toHaveAttribute('data-kept', '41');
  await expect(sl).toHaveAttribute('data-total', '101');
  // What it lost, most salient first: the test command it ran five times (its ledger's first lost fact).
  await expect(page.getByTestId('timeline-source-ledger-lost').locator('li').first()).toContainText(src.ledger!.lost[0].text);
  await sl.scrollIntoViewIfNeeded();
  await snap(page, '52-ledger-timeline-source');

  // 3. Search: "mix" is in turns and in four of the replay's leaves (all folded), as the API says.
  const found = await studio.call<OperationResults['search']>('search', { query: 'mix' });
  expect(found.summaries.length).toBeGreaterThan(0);
  await page.getByTestId('search-input').fill('mix');
  await expect(page.getByTestId('search-summary-hit')).toHaveCount(found.summaries.length);
  await expect(page.getByTestId('search-summary-hit').first().locator('mark').first()).toHaveText(/mix/i);
  await page.getByTestId('search-summary-hit').first().evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await snap(page, '53-ledger-search-summaries');
  await page.getByTestId('search-input').fill('');

  // 4. Compare dag and rolling (both replayed): the facts table, only the rows where they differ.
  await page.getByTestId('strategy-select').selectOption('rolling');
  await page.getByTestId('replay-button').click();
  await expect(page.getByTestId('compaction-progress')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  const variants = await studio.call<OperationResults['listVariants']>('listVariants', { sessionId });
  const ids = ['dag', 'rolling'].map((s) => variants.find((v) => v.strategy === s && v.runs > 0 && v.params.asOfCall === undefined)!.id);
  const cmp = await studio.call<OperationResults['compareVariants']>('compareVariants', { sessionId, variantIds: ids });
  await page.getByTestId('tab-compare').click();
  for (const id of ids) await page.getByTestId(`compare-pick-${id}`).check();
  const facts = page.getByTestId('compare-facts');
  await expect(facts).toHaveAttribute('data-total', String(cmp.context!.facts.total));
  await expect(facts).toHaveAttribute('data-differing', String(cmp.context!.facts.differing));
  await expect(page.getByTestId('compare-fact-row')).toHaveCount(cmp.context!.facts.rows.filter((r) => r.differs).length);
  await expect(page.getByTestId('compare-fact-row').first()).toContainText(cmp.context!.facts.rows.find((r) => r.differs)!.text);
  await facts.evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await snap(page, '54-ledger-compare-facts');
  await page.getByTestId('compare-facts-all').check();
  await expect(page.getByTestId('compare-fact-row')).toHaveCount(cmp.context!.facts.rows.length);
  expect(problems).toEqual([]);
});
