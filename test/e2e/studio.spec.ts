/**
 * The window end to end, in Chromium against browser mode on a temporary database:
 * import a real Claude Code transcript through the file input, move the fresh tail and
 * watch its boundary land on the right turn, switch strategies, compact, inspect the DAG
 * and the context, export OpenAI JSON and validate the file. Every screen is saved in
 * both themes under test-results/screenshots/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { FIXTURES, snap, startStudio, watchPageProblems, type Studio } from './studio.js';

/** 306 turns, 140,001 tokens (o200k), one automatic compaction recorded by Claude Code. */
const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let studio: Studio;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  studio = await startStudio();
});
test.afterAll(async () => {
  await studio?.stop();
});

async function scrollTurnsToEnd(page: Page): Promise<void> {
  await page.getByTestId('turn-list').evaluate((el) => el.scrollTo(0, el.scrollHeight));
}

/** The turn row a boundary marker sits directly before. */
function rowAfterBoundary(page: Page) {
  return page.locator('[data-testid=fresh-tail-boundary] ~ [data-testid=turn-row]').first();
}

test('imports a transcript, tunes and runs the dag strategy, inspects DAG and context, exports OpenAI JSON', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.goto(studio.url);
  // The token is read once and removed from the address bar.
  await expect.poll(() => page.url()).not.toContain('token=');
  await expect(page.getByText('No sessions yet')).toBeVisible();
  await snap(page, '01-empty');

  // Import through the file input.
  await page.getByTestId('import-input').setInputFiles(SPOTTER);
  const item = page.getByTestId('session-item').first();
  await expect(item).toContainText('Implement spotter-gqc');
  await expect(item).toContainText('306 turns');
  await expect(item).toContainText('140k tok');
  await expect(item).toContainText('1 compaction');
  await expect(page.getByTestId('turn-row').first()).toHaveAttribute('data-turn-index', '0');
  await expect(page.getByTestId('turn-row').first()).toContainText('Implement spotter-gqc');
  await expect(page.locator('.list-header')).toContainText('306 turns · 140k tok');

  // dag defaults: freshTailCount 16 -> the tool-cycle-safe fresh tail starts at turn 289.
  await expect(page.getByTestId('strategy-select')).toHaveValue('dag');
  await expect(page.getByTestId('param-freshTailCount')).toHaveValue('16');
  await expect(page.getByTestId('dag-view')).toHaveAttribute('data-node-count', '11');
  await scrollTurnsToEnd(page);
  const boundary = page.getByTestId('fresh-tail-boundary');
  await expect(boundary).toHaveAttribute('data-position', '289');
  // 16 asked; a tool call and its result straddle the 16-turn cut, so the tail grew to 17 (starts at 289).
  await expect(boundary).toContainText('fresh tail: last 17 turns (16 asked, grown to keep a tool call with its result)');
  await expect(rowAfterBoundary(page)).toHaveAttribute('data-turn-index', '289');
  await snap(page, '02-imported-dag-defaults');

  // Move the slider with the keyboard (16 -> 10): the boundary follows to turn 295.
  await page.getByTestId('param-freshTailCount').focus();
  for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowLeft');
  await expect(page.getByTestId('param-freshTailCount')).toHaveValue('10');
  await expect(page.getByTestId('param-freshTailCount-number')).toHaveValue('10');
  await expect(boundary).toHaveAttribute('data-position', '295');
  await expect(boundary).toContainText('fresh tail: last 11 turns (10 asked, grown to keep a tool call with its result)');
  await expect(rowAfterBoundary(page)).toHaveAttribute('data-turn-index', '295');
  await expect(page.locator('[data-testid=turn-row][data-turn-index="295"]')).toHaveAttribute('data-protected', 'true');
  await expect(page.locator('[data-testid=turn-row][data-turn-index="294"]')).not.toHaveAttribute('data-protected', 'true');
  await snap(page, '03-fresh-tail-moved');

  // Switch strategy: watermark protects its preserved tail (last 5 turns: 301), rolling its pointer (71 after the call).
  await page.getByTestId('strategy-select').selectOption('watermark');
  await expect(page.getByTestId('param-preserveRecentTurns')).toHaveValue('5');
  await scrollTurnsToEnd(page);
  await expect(boundary).toHaveAttribute('data-kind', 'preserved-tail');
  await expect(boundary).toHaveAttribute('data-position', '301');
  await expect(rowAfterBoundary(page)).toHaveAttribute('data-turn-index', '301');
  await snap(page, '04-watermark');
  await page.getByTestId('strategy-select').selectOption('rolling');
  await expect(page.getByTestId('param-compactionCount')).toHaveValue('50');
  await expect(boundary).toHaveAttribute('data-kind', 'pointer');
  await expect(boundary).toHaveAttribute('data-position', '71');

  // Back to dag: its parameters were kept (fresh tail 10). Smaller leaf chunks -> 18 planned leaves + 1 condensed.
  await page.getByTestId('strategy-select').selectOption('dag');
  await expect(page.getByTestId('param-freshTailCount')).toHaveValue('10');
  await page.getByTestId('param-leafChunkTokens-number').fill('8000');
  await page.getByTestId('param-leafChunkTokens-number').press('Enter');
  await expect(page.getByTestId('param-leafChunkTokens')).toHaveValue('8000');
  await expect(page.getByTestId('dag-view')).toHaveAttribute('data-node-count', '19');
  await expect(page.getByTestId('plan-stats')).toContainText('18 spans');
  await expect(page.locator('[data-testid=dag-node][data-projected=true]').first()).toBeVisible();
  await snap(page, '05-dag-planned');

  // Compact: progress, then the run's stats; the DAG now holds stored nodes at depth 0 and 1.
  // By raw transcript tokens, 140,001 are under dag's trigger (0.75 x 200,000): Compact runs the plan only when forced.
  await page.getByTestId('param-contextMeasure').selectOption('transcript');
  await expect(page.getByTestId('trigger-decision')).toHaveAttribute('data-compact', 'false');
  await page.getByTestId('force-toggle').check();
  await page.getByTestId('compact-button').click();
  const progress = page.getByTestId('compaction-progress');
  await expect(progress).toBeVisible();
  await expect(progress).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  const total = await progress.getAttribute('data-total');
  expect(Number(total)).toBe(19);
  await expect(progress).toHaveAttribute('data-done', String(total));
  await expect(page.getByTestId('compaction-progress-count')).toHaveText('19/19');
  await expect(page.getByTestId('notice-success').filter({ hasText: 'completed' })).toContainText('18 leaf · 1 condensed');
  await expect(page.getByTestId('dag-view')).toHaveAttribute('data-node-count', '19');
  await expect(page.locator('[data-testid=dag-node][data-projected=true]')).toHaveCount(0);
  await page.locator('.react-flow__controls-fitview').click();
  await expect(page.locator('[data-testid=dag-node][data-depth="0"]')).toHaveCount(18);
  await expect(page.locator('[data-testid=dag-node][data-depth="1"]')).toHaveCount(1);
  await snap(page, '06-compacted');

  // Click the condensed node: its text and source turns, highlighted in the list and scrolled to.
  const condensed = page.locator('[data-testid=dag-node][data-depth="1"]');
  const first = Number(await condensed.getAttribute('data-first'));
  const last = Number(await condensed.getAttribute('data-last'));
  expect(first).toBe(0);
  expect(last).toBeGreaterThan(first);
  expect(last).toBeLessThan(295);
  await condensed.click();
  const inspector = page.getByTestId('inspector');
  await expect(inspector).toContainText('depth 1');
  await expect(inspector).toContainText(`${first}–${last}`);
  const sessions = await studio.call<Array<{ id: number }>>('listSessions', {});
  const variants = await studio.call<Array<{ id: number; strategy: string; summaries: number }>>('listVariants', { sessionId: sessions[0].id });
  const variant = variants.find((v) => v.strategy === 'dag' && v.summaries === 19)!;
  expect(variant).toBeTruthy();
  const summaries = await studio.call<Array<{ id: number; depth: number; text: string; tier: string; model: string }>>('listSummaries', { variantId: variant.id });
  const stored = summaries.find((s) => s.depth === 1)!;
  await expect(page.getByTestId('inspector-text')).toHaveText(stored.text);
  await expect(inspector).toContainText(stored.tier);
  await expect(inspector).toContainText(stored.model);
  const highlighted = page.locator('[data-testid=turn-row][data-highlighted=true]');
  await expect(highlighted.first()).toHaveAttribute('data-turn-index', String(first));
  await expect(highlighted.first()).toBeInViewport();
  await snap(page, '07-node-selected');

  // Context: what the model receives for this variant, with per-message tokens and the total.
  await page.getByTestId('tab-context').click();
  const context = page.getByTestId('context-view');
  const replay = await studio.call<{ messages: Array<{ origin: { kind: string } }>; totalTokens: number }>('replay', { variantId: variant.id });
  await expect(context).toHaveAttribute('data-total-tokens', String(replay.totalTokens));
  await expect(context).toHaveAttribute('data-message-count', String(replay.messages.length));
  await expect(page.getByTestId('context-total')).toHaveText(replay.totalTokens.toLocaleString('en-US'));
  await expect(page.locator('[data-testid=context-message][data-origin=summary]').first()).toBeVisible();
  await snap(page, '08-context');

  // Runs: the completed run of this variant with its stats.
  await page.getByTestId('tab-runs').click();
  await expect(page.getByTestId('run-item')).toHaveCount(1);
  await expect(page.getByTestId('run-item').first()).toHaveAttribute('data-status', 'completed');
  await snap(page, '09-runs');

  // Export OpenAI JSON (browser mode downloads it) and validate the file.
  await page.getByTestId('export-format').selectOption('openai');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-button').click()]);
  const file = await download.path();
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  const messages = (Array.isArray(parsed) ? parsed : (parsed as { messages: unknown[] }).messages) as Array<{ role: string; content: unknown; tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>; tool_call_id?: string }>;
  expect(messages.length).toBeGreaterThan(0);
  for (const m of messages) expect(['system', 'user', 'assistant', 'tool']).toContain(m.role);
  // Tool calls paired: every call answered right after its assistant message, no orphan result.
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'tool') {
      expect(open.has(m.tool_call_id!)).toBe(true);
      open.delete(m.tool_call_id!);
    } else {
      expect(open.size).toBe(0);
      for (const call of m.tool_calls ?? []) {
        expect(call.type).toBe('function');
        expect(() => JSON.parse(call.function.arguments)).not.toThrow();
        open.add(call.id);
      }
    }
  }
  expect(open.size).toBe(0);
  // The compacted history arrives as the stored summary text.
  expect(JSON.stringify(messages)).toContain(JSON.stringify(stored.text).slice(1, 60));

  expect(problems).toEqual([]);
});

test('opens a turn with thinking and tool calls collapsed, shows the compaction Claude Code recorded, and finds turns by search', async ({ page }) => {
  await page.goto(studio.url);
  const row = page.locator('[data-testid=turn-row][data-turn-index="1"]');
  await expect(row).toContainText('thinking');
  await row.locator('.turn-head').click();
  await expect(row.locator('.block-tool-use').first()).toBeVisible();
  await expect(row.locator('.block-tool-use .block-body')).toHaveCount(0);
  await row.locator('.block-tool-use .block-toggle').first().click();
  await expect(row.locator('.block-tool-use .block-body').first()).toContainText('"command"');
  await row.locator('.block-thinking .block-toggle').first().click();
  await expect(row.locator('.block-thinking .block-body')).toBeVisible();
  await snap(page, '10-turn-opened');

  // The compaction Claude Code recorded, drawn where it happened; its summary opens in the inspector.
  const [session] = await studio.call<Array<{ id: number }>>('listSessions', {});
  const detail = await studio.call<{ externalCompactions_: Array<{ boundaryPosition: number; preTokens: number; trigger: string }> }>('getSession', { sessionId: session.id });
  expect(detail.externalCompactions_).toHaveLength(1);
  expect(detail.externalCompactions_[0]).toMatchObject({ trigger: 'auto', preTokens: 167094 });
  const at = detail.externalCompactions_[0].boundaryPosition;
  await page.getByTestId('goto-turn').fill(String(at));
  await page.getByTestId('goto-turn').press('Enter');
  const external = page.getByTestId('external-compaction');
  await expect(external).toBeVisible();
  await expect(external).toHaveAttribute('data-position', String(at));
  await expect(external).toContainText('167,094 tokens before');
  await external.click();
  await expect(page.getByTestId('inspector')).toContainText('source tool');
  await expect(page.getByTestId('inspector-text')).toContainText('This session is being continued from a previous conversation');
  await snap(page, '11-external-compaction');

  // Full-text search over the turns: a hit opens its turn, centred and outlined.
  const hits = (await studio.call<{ turns: Array<{ position: number; snippet: string }> }>('search', { query: 'AnnotationMessageRef' })).turns;
  expect(hits.length).toBeGreaterThan(0);
  await page.getByTestId('search-input').fill('AnnotationMessageRef');
  await expect(page.getByTestId('search-hit')).toHaveCount(hits.length);
  await expect(page.getByTestId('search-hit').first().locator('mark').first()).toHaveText(/AnnotationMessageRef/i);
  await page.getByTestId('search-hit').first().click();
  const found = page.locator(`[data-testid=turn-row][data-turn-index="${hits[0].position}"]`);
  await expect(found).toBeInViewport();
  await expect(found).toHaveClass(/focused/);
  await snap(page, '15-search');
});

test('a broken file gives a readable error naming the file and the line, and the window keeps working', async ({ page }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bad-'));
  const lines = fs.readFileSync(path.join(FIXTURES, 'claude-code/claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl'), 'utf8').split('\n');
  const broken = path.join(dir, 'broken-session.jsonl');
  fs.writeFileSync(broken, [...lines.slice(0, 3), '{"type":"user", "message": {broken', ...lines.slice(3)].join('\n'));
  try {
    await page.goto(studio.url);
    await expect(page.getByTestId('session-item')).toHaveCount(1);
    await page.getByTestId('import-input').setInputFiles(broken);
    const error = page.getByTestId('notice-error');
    await expect(error).toContainText('Could not import broken-session.jsonl');
    await expect(error).toContainText('broken-session.jsonl, line 4: not valid JSON');
    // Nothing was imported and the window still works.
    await expect(page.getByTestId('session-item')).toHaveCount(1);
    await expect(page.getByTestId('turn-row').first()).toBeVisible();
    await snap(page, '12-import-error');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('settings keep the API key write-only; shortcuts compact and export; a session can be deleted', async ({ page }) => {
  await page.goto(studio.url);
  await expect(page.getByTestId('turn-row').first()).toBeVisible();
  await page.getByTestId('settings-button').click();
  const dialog = page.getByTestId('settings-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByText('OpenAI-compatible').click();
  await dialog.locator('#set-base-url').fill('http://127.0.0.1:9/v1');
  await dialog.locator('#set-model').fill('test-model');
  await dialog.locator('#set-key').fill('sk-secret-e2e');
  await snap(page, '13-settings');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toHaveCount(0);
  const settings = await studio.call<Record<string, unknown>>('getSettings', {});
  expect(settings).toMatchObject({ hasApiKey: true, summarizer: { kind: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'test-model' } });
  expect(JSON.stringify(settings)).not.toContain('sk-secret-e2e');
  // Reopened: the key is never shown back.
  await page.getByTestId('settings-button').click();
  await expect(dialog.locator('#set-key')).toHaveValue('');
  await expect(dialog.locator('#set-key')).toHaveAttribute('placeholder', /stored/);
  await dialog.getByText('Extractive').click();
  // Prices: a bad value says which model and field, and saves nothing; a good one is stored.
  await dialog.getByTestId('settings-prices').fill('{"llama3.1:8b": {"input": -1, "output": 0.2}}');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toContainText('llama3.1:8b.input');
  await dialog.getByTestId('settings-prices').fill('{"llama3.1:8b": {"input": 0.1, "output": 0.2}}');
  await snap(page, '13-settings-prices');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toHaveCount(0);
  expect((await studio.call<{ prices: unknown }>('getSettings', {})).prices).toEqual({ 'llama3.1:8b': { input: 0.1, output: 0.2 } });

  // Ctrl+Enter compacts (the masking baseline, model-free), Ctrl+E exports.
  await page.getByTestId('strategy-select').selectOption('masking');
  await page.locator('body').click({ position: { x: 5, y: 600 } });
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('compaction-progress')).toHaveAttribute('data-status', /completed|skipped/, { timeout: 60_000 });
  await page.getByTestId('export-format').selectOption('markdown');
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Control+e')]);
  expect(fs.readFileSync(await download.path(), 'utf8').length).toBeGreaterThan(100);

  // Delete asks first, then removes the session.
  const item = page.getByTestId('session-item').first();
  await item.hover();
  await item.getByTestId('delete-session').click();
  await expect(item).toContainText('Delete this session');
  await snap(page, '14-delete-confirm');
  await item.getByTestId('confirm-delete').click();
  await expect(page.getByTestId('session-item')).toHaveCount(0);
  await expect(page.getByText('No sessions yet')).toBeVisible();
});
