/**
 * The Settings warning when the API key cannot be stored encrypted (Electron on a Linux
 * session without a keyring: safeStorage's basic_text backend, electron/shell/settings.ts).
 * Browser mode never reports it (its key lives in memory by design), so the real
 * getSettings answer is passed through with the Electron notice added; everything else is
 * the real app. The main-process side is tested in test/node/electron-shell.test.ts.
 */
import { expect, test } from '@playwright/test';
import { snap, startStudio, watchPageProblems, type Studio } from './studio.js';

let studio: Studio;

test.beforeAll(async () => {
  studio = await startStudio();
});

test.afterAll(async () => {
  await studio.stop();
});

const WARNING = 'No keyring is available (Electron safeStorage fell back to its plain-text backend, basic_text), so the API key would not be encrypted on disk. It is kept in memory until the app quits; unlock or install a keyring (GNOME Keyring, KWallet) and restart to store it encrypted, or set OPENAI_API_KEY.';

test('Settings says when the API key is kept in memory because no keyring can encrypt it', async ({ page }) => {
  const problems = watchPageProblems(page);
  await page.route('**/api/getSettings', async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as { ok: boolean; value: Record<string, unknown> };
    await route.fulfill({ response, json: { ...body, value: { ...body.value, keyStorage: { encrypted: false, warning: WARNING } } } });
  });
  await page.goto(studio.url);
  await page.getByTestId('settings-button').click();
  const dialog = page.getByTestId('settings-dialog');
  await dialog.getByText('OpenAI-compatible').click();
  const notice = dialog.getByTestId('settings-key-storage');
  await expect(notice).toHaveText(`The API key is not stored encrypted. ${WARNING}`);
  await expect(notice).toBeInViewport();
  await snap(page, 'settings-key-storage');
  expect(problems).toEqual([]);
});
