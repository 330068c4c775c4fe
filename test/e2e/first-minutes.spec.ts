/**
 * The window's first minutes, in Chromium against browser mode on a temporary
 * database WITH the demo (the spotter session and Claude Code's own compaction):
 * Compact on the demo at dag's defaults, forced, produces summaries (the trigger would not fire
 * at 140,001 tokens < 150,000: Compact respects it unless Force is on, and says so); masking shows
 * its compacted state after its pass; the context labels merged summaries with the turns
 * they carry; an import opens the session it imported; a folder import creates sessions;
 * invalid parameters are explained in the DAG pane; the theme switch, the legend, keyboard
 * focus leaving the turn list and a 1000×700 window. Screens in both themes under
 * test-results/screenshots/3x-*.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { FIXTURES, snap, startStudio, watchPageProblems, type Studio } from './studio.js';

type SessionRow = { id: number; title: string; parentSessionId: number | null; sourceFile: string };
type Summary = { id: number; firstPosition: number; lastPosition: number };
type Message = { origin: { kind: string; summaryId?: number; position?: number }; parts?: Array<{ kind: string; summaryId?: number; position?: number }> };

let studio: Studio;

/** A fresh load of the window (the token leaves the address bar, and a hash-only goto would not reload). */
async function reopen(page: Page): Promise<void> {
  await page.goto('about:blank');
  await page.goto(studio.url);
  await expect(page.locator('.header-session-title')).toBeVisible();
}
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  studio = await startStudio({ demo: true });
});
test.afterAll(async () => {
  await studio?.stop();
});

test('the demo compacts at the defaults (by its calibrated context), masking shows its compacted state, merged summaries say what they cover', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.goto(studio.url);
  // The demo is the spotter session, opened on start.
  const demo = (await studio.call<SessionRow[]>('listSessions', {}))[0];
  expect(demo.title).toBe('Implement spotter-gqc');
  await expect(page.locator('.header-session-title')).toHaveText('Implement spotter-gqc');
  await expect(page.locator('.list-header')).toContainText('306 turns · 140k tok');
  await expect(page.getByTestId('strategy-select')).toHaveValue('dag');
  // Every row colour is named.
  const legend = page.getByTestId('turn-legend');
  for (const label of ['to summarize', 'masked', 'dropped', 'summarized', 'protected', 'selected']) await expect(legend).toContainText(label);
  // The demo reports Claude Code's usage, so its thresholds count the calibrated context (its fit
  // a + b x transcript): 204,528 tokens, over dag's 0.75 x 200,000 at the defaults. The gauge
  // says that figure beside the transcript bars.
  await expect(page.getByTestId('trigger-decision')).toHaveAttribute('data-compact', 'true');
  await expect(page.getByTestId('gauge-measured')).toContainText('context by calibrated');
  await expect(page.getByTestId('gauge-measured')).toHaveAttribute('data-before', '204528');
  await snap(page, '30-demo-start');

  // Compact runs what the trigger asks for: no Force needed, and the notice does not say it was forced.
  await expect(page.getByTestId('force-toggle')).not.toBeChecked();
  await expect(page.getByTestId('compact-button')).toHaveText('Compact');
  await snap(page, '31-demo-force');
  await page.getByTestId('compact-button').click();
  const progress = page.getByTestId('compaction-progress');
  await expect(progress).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  const notice = page.getByTestId('notice-success').filter({ hasText: 'completed' });
  await expect(notice).not.toContainText('the trigger would not have fired');
  await expect(notice).toContainText('10 leaf · 1 condensed');
  const variants = await studio.call<Array<{ id: number; strategy: string; summaries: number }>>('listVariants', { sessionId: demo.id });
  const dag = variants.find((v) => v.strategy === 'dag')!;
  expect(dag.summaries).toBeGreaterThan(0);
  await snap(page, '31-demo-compacted');

  // The context: a message merging several summaries is labelled with every turn they cover.
  await page.getByTestId('tab-context').click();
  const summaries = await studio.call<Summary[]>('listSummaries', { variantId: dag.id });
  const replay = await studio.call<{ messages: Message[] }>('replay', { variantId: dag.id });
  const byId = new Map(summaries.map((s) => [s.id, s]));
  const index = replay.messages.findIndex((m) => m.origin.kind === 'summary');
  const parts = replay.messages[index].parts ?? [replay.messages[index].origin];
  const ranges = parts.map((p) => (p.kind === 'summary' ? [byId.get(p.summaryId!)!.firstPosition, byId.get(p.summaryId!)!.lastPosition] : p.kind === 'turn' ? [p.position!, p.position!] : null)).filter((r): r is number[] => r !== null);
  const covers = `${Math.min(...ranges.map((r) => r[0]))}-${Math.max(...ranges.map((r) => r[1]))}`;
  const row = page.getByTestId('context-message').nth(index);
  await expect(row).toHaveAttribute('data-covers', covers);
  await expect(row.getByTestId('context-covers')).toHaveText(`turns ${covers.replace('-', '–')}`);
  await snap(page, '32-demo-context');

  // Masking: planned before its pass, compacted (and said so) after it.
  await page.getByTestId('tab-dag').click();
  await page.getByTestId('strategy-select').selectOption('masking');
  const decision = page.getByTestId('trigger-decision');
  await expect(decision).toHaveAttribute('data-compact', 'true');
  await expect(page.locator('.list-header')).toContainText('1 planned');
  await expect(page.locator('[data-testid=turn-row][data-span-state=planned]').first()).toBeVisible();
  await page.getByTestId('compact-button').click();
  await expect(progress).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await expect(decision).toHaveAttribute('data-compact', 'false');
  await expect(decision).toContainText('already compacted');
  await expect(page.locator('.list-header')).toContainText('1 applied');
  await expect(page.locator('[data-testid=turn-row][data-span-state=applied]').first()).toBeVisible();
  await expect(page.locator('[data-testid=turn-row][data-span-state=planned]')).toHaveCount(0);
  const gauge = page.getByTestId('token-gauge');
  expect(Number(await gauge.getAttribute('data-before'))).toBe(Number(await gauge.getAttribute('data-after')));
  await snap(page, '33-masking-compacted');

  // Keyboard: the list is one Tab stop; arrows walk rows; Escape leaves to the strategy panel.
  await page.getByTestId('turn-list').focus();
  await page.keyboard.press('ArrowDown');
  await expect(page.locator('.turn-head:focus')).toHaveCount(1);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('turn-list')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('strategy-select')).toBeFocused();
  await page.getByTestId('turn-list').focus();
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => !!document.activeElement?.closest('[data-testid=turn-list]'))).toBe(false);

  // 1000×700: the gauge and the decision stay in view.
  await page.setViewportSize({ width: 1000, height: 700 });
  await expect(page.getByTestId('token-gauge')).toBeInViewport({ ratio: 1 });
  await expect(decision).toBeInViewport({ ratio: 1 });
  // The header's last control (Settings) is not cut off.
  await expect(page.getByTestId('settings-button')).toBeInViewport({ ratio: 1 });
  await snap(page, '34-small-window');
  await page.setViewportSize({ width: 1440, height: 900 });
  expect(problems).toEqual([]);
});

test('an import opens what it imported; a folder imports every session in it', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.goto(studio.url);
  await expect(page.locator('.header-session-title')).toHaveText('Implement spotter-gqc');

  // One file: its session opens (not the first of the list).
  await page.getByTestId('import-input').setInputFiles(path.join(FIXTURES, 'claude-code/spotter__tool_heavy.jsonl'));
  await expect(page.getByTestId('notice-success').filter({ hasText: 'Imported' })).toBeVisible();
  const afterOne = await studio.call<SessionRow[]>('listSessions', {});
  const heavy = afterOne.find((s) => s.sourceFile.endsWith('spotter__tool_heavy.jsonl'))!;
  await expect(page.locator('.header-session-title')).toHaveText(heavy.title);
  await expect(page.locator(`[data-testid=session-item][data-session-id="${heavy.id}"]`)).toHaveAttribute('aria-selected', 'true');

  // A folder (a Claude Code project: a session with its subagents), through Import folder…'s input.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-folder-'));
  const project = path.join(dir, 'project');
  const session = 'ef958aa1-0e93-49f0-bb71-150f63befcd1';
  fs.mkdirSync(path.join(project, session, 'subagents'), { recursive: true });
  const src = (name: string) => path.join(FIXTURES, 'claude-code', name);
  fs.copyFileSync(src(`claude-code-log__-experiments-worktrees__${session}.jsonl`), path.join(project, `${session}.jsonl`));
  const agents = fs.readdirSync(path.join(FIXTURES, 'claude-code')).filter((f) => f.startsWith(`claude-code-log__-experiments-worktrees__${session}__subagents__`));
  for (const f of agents) fs.copyFileSync(src(f), path.join(project, session, 'subagents', f.split('__subagents__')[1]));
  const transcripts = agents.filter((f) => f.endsWith('.jsonl')).length + 1;
  await expect(page.getByTestId('import-folder-button')).toContainText('Import folder…');
  await page.getByTestId('import-folder-input').setInputFiles(project);
  await expect(page.getByTestId('notice-success').filter({ hasText: 'from project/' })).toBeVisible({ timeout: 30_000 });
  const afterFolder = await studio.call<SessionRow[]>('listSessions', {});
  // Every transcript of the folder became a session, the subagents linked to their parent as the CLI links them.
  expect(afterFolder.length - afterOne.length).toBe(transcripts);
  const fresh = afterFolder.filter((s) => !afterOne.some((o) => o.id === s.id));
  const parents = fresh.filter((s) => s.parentSessionId === null);
  expect(parents).toHaveLength(1);
  const opened = parents[0];
  expect(fresh.filter((s) => s.parentSessionId === opened.id)).toHaveLength(transcripts - 1);
  await expect(page.locator('.header-session-title')).toHaveText(opened.title);
  await snap(page, '35-folder-imported');

  // The same file again: nothing new, and its session opens.
  await page.getByTestId('import-input').setInputFiles(path.join(FIXTURES, 'claude-code/spotter__tool_heavy.jsonl'));
  await expect(page.getByTestId('notice-info').filter({ hasText: 'Already imported' })).toBeVisible();
  await expect(page.locator('.header-session-title')).toHaveText(heavy.title);
  fs.rmSync(dir, { recursive: true, force: true });
  expect(problems).toEqual([]);
});

test('invalid parameters are explained in the DAG pane; the theme switch applies and persists', async ({ page }) => {
  await page.goto(studio.url);
  await expect(page.locator('.header-session-title')).toBeVisible();
  // A value out of range (an older build's, kept in localStorage) cannot be planned.
  await page.evaluate(() => localStorage.setItem('compaction-studio.ui.v1', JSON.stringify({ strategy: 'dag', paramsByStrategy: { dag: { leafChunkTokens: 5 } } })));
  await reopen(page);
  const empty = page.getByTestId('dag-empty');
  await expect(empty).toContainText('Cannot plan with these parameters: parameter leafChunkTokens must be between');
  await expect(empty).not.toContainText('not available');
  await expect(page.locator('.plan-error')).toContainText('Cannot plan:');
  await snap(page, '36-invalid-params');
  await page.evaluate(() => localStorage.removeItem('compaction-studio.ui.v1'));
  await reopen(page);

  // Theme: Light and Dark override the system's scheme, System follows it again; kept on reload.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.getByTestId('settings-button').click();
  await page.getByTestId('settings-theme').getByText('Light').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await bg();
  await page.screenshot({ path: path.join('test-results', 'screenshots', '37-theme-light-over-dark-system.png') });
  await page.getByTestId('settings-theme').getByText('Dark').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await bg()).not.toBe(light);
  await reopen(page);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await bg()).not.toBe(light);
  await page.getByTestId('settings-button').click();
  await page.getByTestId('settings-theme').getByText('System').click();
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./);
  expect(await bg()).toBe(light);
});
