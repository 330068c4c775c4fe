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
import { DEFAULT_KEY_ORIGIN, envKeyOrigin, type SecretStore } from '../services/secrets.js';

/** The part of Electron's safeStorage this module uses. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

export const API_KEY_FILE = 'openai-api-key.bin';

/**
 * A SecretStore backed by `<userData>/openai-api-key.bin` (safeStorage ciphertext).
 * When the OS offers no encryption (a Linux session without a keyring), the key is kept
 * in memory for this run only: a plaintext key on disk would be worse than re-entering it.
 * $OPENAI_API_KEY is the fallback when nothing is stored (for $OPENAI_BASE_URL's origin).
 * The file holds `{"key","origin"}` (the origin the key was entered for); a file from
 * before origins holds the bare key, which counts as entered for DEFAULT_KEY_ORIGIN.
 */
export function safeStorageSecretStore(userDataDir: string, safeStorage: SafeStorageLike, env: NodeJS.ProcessEnv = process.env, warn: (m: string) => void = (m) => console.warn(m)): SecretStore {
  const file = path.join(userDataDir, API_KEY_FILE);
  let memoryOnly: { key: string; origin: string } | null = null;

  const readStored = (): { key: string; origin: string } | null => {
    if (!fs.existsSync(file) || !safeStorage.isEncryptionAvailable()) return null;
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
      if (!safeStorage.isEncryptionAvailable()) {
        warn('safeStorage encryption is not available: the API key is kept in memory until the app quits');
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
  };
}
