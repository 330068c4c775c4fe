/**
 * The Electron side of settings: the summarizer API key encrypted with safeStorage in
 * the userData folder (never in the database, never sent to the window). The other
 * settings live in the store (services/settings-store.ts).
 *
 * safeStorage is passed in rather than imported, so this module loads (and is tested)
 * without the Electron binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SafeStorage } from 'electron';
import { DEFAULT_KEY_ORIGIN, envKeyOrigin, type SecretStore } from '../services/secrets.js';

/** The part of Electron's safeStorage this module uses (typed from electron.d.ts). */
export type SafeStorageLike = Pick<SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'> & Partial<Pick<SafeStorage, 'getSelectedStorageBackend'>>;

/**
 * Why the key cannot be stored encrypted, or null when it can. On Linux without a keyring
 * (no GNOME Keyring / KWallet in the session) safeStorage selects its `basic_text` backend:
 * `isEncryptionAvailable()` is still true, but the "encryption" uses a fixed password
 * built into Chromium, so the file would be as good as plain text. We refuse that.
 */
export function keyStorageProblem(safeStorage: SafeStorageLike, platform: NodeJS.Platform): string | null {
  if (platform === 'linux' && typeof safeStorage.getSelectedStorageBackend === 'function' && safeStorage.getSelectedStorageBackend() === 'basic_text') {
    return 'No keyring is available (Electron safeStorage fell back to its plain-text backend, basic_text), so the API key would not be encrypted on disk. It is kept in memory until the app quits; unlock or install a keyring (GNOME Keyring, KWallet) and restart to store it encrypted, or set OPENAI_API_KEY.';
  }
  if (!safeStorage.isEncryptionAvailable()) {
    return 'This system offers no encryption for secrets (Electron safeStorage is unavailable), so the API key is kept in memory until the app quits; set OPENAI_API_KEY to avoid entering it each time.';
  }
  return null;
}

export const API_KEY_FILE = 'openai-api-key.bin';

/**
 * A SecretStore backed by `<userData>/openai-api-key.bin` (safeStorage ciphertext).
 * When the OS offers no real encryption (keyStorageProblem: none at all, or Linux's
 * basic_text fallback) the key is neither written nor read there: it is kept in memory for
 * this run only (a plaintext key on disk would be worse than re-entering it), and
 * `storageWarning()` says so, which Settings shows as `keyStorage`.
 * $OPENAI_API_KEY is the fallback when nothing is stored (for $OPENAI_BASE_URL's origin).
 * The file holds `{"key","origin"}` (the origin the key was entered for); a file from
 * before origins holds the bare key, which counts as entered for DEFAULT_KEY_ORIGIN.
 */
export function safeStorageSecretStore(
  userDataDir: string,
  safeStorage: SafeStorageLike,
  env: NodeJS.ProcessEnv = process.env,
  warn: (m: string) => void = (m) => console.warn(m),
  platform: NodeJS.Platform = process.platform,
): SecretStore {
  const file = path.join(userDataDir, API_KEY_FILE);
  let memoryOnly: { key: string; origin: string } | null = null;

  const readStored = (): { key: string; origin: string } | null => {
    if (!fs.existsSync(file) || keyStorageProblem(safeStorage, platform) !== null) return null;
    let plain: string;
    try {
      plain = safeStorage.decryptString(fs.readFileSync(file));
    } catch (err) {
      warn(`could not decrypt the stored API key (${err instanceof Error ? err.message : String(err)}); enter it again in Settings`);
      return null;
    }
    try {
      const parsed = JSON.parse(plain) as unknown;
      if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { key?: unknown }).key === 'string' && typeof (parsed as { origin?: unknown }).origin === 'string') {
        return parsed as { key: string; origin: string };
      }
    } catch {
      // A bare key stored before origins were.
    }
    return { key: plain, origin: DEFAULT_KEY_ORIGIN };
  };
  const current = (): { key: string; origin: string } | null => {
    const stored = memoryOnly ?? readStored();
    if (stored && stored.key.length > 0) return stored;
    return env.OPENAI_API_KEY && env.OPENAI_API_KEY.length > 0 ? { key: env.OPENAI_API_KEY, origin: envKeyOrigin(env) } : null;
  };

  return {
    getApiKey() {
      return current()?.key ?? null;
    },
    getApiKeyOrigin() {
      return current()?.origin ?? null;
    },
    setApiKey(key, origin = DEFAULT_KEY_ORIGIN) {
      if (!key) {
        memoryOnly = null;
        fs.rmSync(file, { force: true });
        return;
      }
      const problem = keyStorageProblem(safeStorage, platform);
      if (problem !== null) {
        warn(problem);
        memoryOnly = { key, origin };
        return;
      }
      fs.mkdirSync(userDataDir, { recursive: true });
      // Written to a temp file and renamed: a crash never leaves half a ciphertext.
      const tmp = `${file}.tmp`;
      fs.writeFileSync(tmp, safeStorage.encryptString(JSON.stringify({ key, origin })), { mode: 0o600 });
      fs.renameSync(tmp, file);
      memoryOnly = null;
    },
    storageWarning() {
      return keyStorageProblem(safeStorage, platform);
    },
  };
}
