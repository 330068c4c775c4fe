/**
 * The strategy panel's Prompts section end to end, in Chromium against browser mode on a
 * temporary database, with the OpenAI-compatible summarizer pointed at the tests' fake
 * server: the dag strategy lists its three templates, the editor shows the diff against the
 * default as the leaf template is edited, Save gives the variant a new prompt version, and a
 * Compact sends the edited text on the wire. Screens in both themes under test-results/screenshots/.
 */
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { DEFAULT_PROMPT_TEMPLATES, OPENAI_PROMPT_VERSION, openAiPromptVersion } from '../../shared/summarize/prompts.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { FIXTURES, snap, startStudio, watchPageProblems, type Studio } from './studio.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const ADDED = 'Also list every test file that was named, with its result.';

let studio: Studio;
let server: FakeOpenAiServer;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  server = await startFakeOpenAiServer();
  studio = await startStudio();
  await studio.call('setSettings', { summarizer: { kind: 'openai', baseURL: server.baseURL, model: 'fake-model' } });
});
test.afterAll(async () => {
  await studio?.stop();
  await server?.close();
});

test('prompts: the dag templates, an edited leaf prompt with its diff, a new prompt version, the edit on the wire', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(studio.url);
  await page.getByTestId('import-input').setInputFiles(SPOTTER);
  await expect(page.getByTestId('session-item').first()).toContainText('306 turns');
  await expect(page.getByTestId('strategy-select')).toHaveValue('dag');

  const section = page.getByTestId('prompts-section');
  await section.locator('summary').click();
  await expect(section.locator('[data-testid^=prompt-row-]')).toHaveCount(3);
  for (const id of ['leaf', 'condensed-1', 'condensed-2plus']) await expect(page.getByTestId(`prompt-row-${id}`)).toContainText('default');
  await expect(page.getByTestId('prompts-version')).toHaveText(`prompt version ${OPENAI_PROMPT_VERSION}`);

  // Edit the leaf template: the diff marks the one added line, the next version is shown.
  await page.getByTestId('prompt-edit-leaf').click();
  const editor = page.getByTestId('prompt-editor');
  await expect(editor).toBeVisible();
  await expect(page.getByTestId('prompt-text')).toHaveValue(DEFAULT_PROMPT_TEMPLATES.leaf);
  await expect(page.getByTestId('prompt-diff-stats')).toHaveText('unchanged');
  await page.getByTestId('prompt-text').fill(`${DEFAULT_PROMPT_TEMPLATES.leaf}\n${ADDED}`);
  await expect(page.getByTestId('prompt-diff-stats')).toHaveText('+1 −0 lines');
  await expect(page.getByTestId('prompt-diff').locator('.diff-add')).toHaveText(`+${ADDED}`);
  const edited = openAiPromptVersion({ leaf: `${DEFAULT_PROMPT_TEMPLATES.leaf}\n${ADDED}` });
  await expect(page.getByTestId('prompt-version-next')).toHaveText(edited);
  await page.getByTestId('prompt-diff').evaluate((el) => (el.scrollTop = el.scrollHeight));
  await snap(page, '50-prompt-editor');

  // Reset brings the default back (unchanged), then the edit again, and Save.
  await page.getByTestId('prompt-reset').click();
  await expect(page.getByTestId('prompt-diff-stats')).toHaveText('unchanged');
  await page.getByTestId('prompt-text').fill(`${DEFAULT_PROMPT_TEMPLATES.leaf}\n${ADDED}`);
  await page.getByTestId('prompt-save').click();
  await expect(editor).toBeHidden();
  await expect(page.getByTestId('prompt-row-leaf')).toContainText('edited');
  await expect(page.getByTestId('prompts-version')).toHaveText(`prompt version ${edited}`);
  await snap(page, '51-prompts-section');

  // Compact: the variant carries the new version and the fake server got the edited leaf prompt.
  // Forced: the session is under dag's trigger, and only a pass that runs sends the prompt.
  await page.getByTestId('force-toggle').check();
  await page.getByTestId('compact-button').click();
  await expect(page.getByTestId('compaction-progress')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  const leaves = server.requests.filter((r) => r.body?.messages[0].content.startsWith(`${DEFAULT_PROMPT_TEMPLATES.leaf}\n${ADDED}\n\n`));
  expect(leaves.length).toBeGreaterThan(0);
  const variants = await studio.call<Array<{ summarizer: { promptVersion: string; prompts?: Record<string, string> } }>>('listVariants', { sessionId: 1 });
  expect(variants.map((v) => v.summarizer.promptVersion)).toContain(edited);
  expect(variants.find((v) => v.summarizer.promptVersion === edited)!.summarizer.prompts).toEqual({ leaf: `${DEFAULT_PROMPT_TEMPLATES.leaf}\n${ADDED}` });
  expect(problems).toEqual([]);
});
