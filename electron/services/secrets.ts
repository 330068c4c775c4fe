/**
 * Where the summarizer's API key lives. The key is write-only from the window's side:
 * getSettings reports `hasApiKey`, never the key. Electron keeps it encrypted with
 * safeStorage (electron/shell/settings.ts); browser mode and tests keep it in process memory,
 * seeded from OPENAI_API_KEY.
 *
 * The key is bound to the endpoint origin it was entered for (scheme://host:port of the
 * summarizer baseURL in effect when it was set). A run whose summarizer points at another
 * origin never sends it: the window (or an API caller) cannot redirect the key to a server
 * of its choosing by changing the base URL; the key has to be entered again for that origin.
 */
import { holdSecret } from '../held-secrets.js';
import { StudioError, type SummarizerConfig } from '../../shared/contract.js';

/** The origin of the default summarizer endpoint (https://api.openai.com/v1). */
export const DEFAULT_KEY_ORIGIN = 'https://api.openai.com';

export interface SecretStore {
  getApiKey(): string | null;
  /** The origin the key was entered for (DEFAULT_KEY_ORIGIN for a key stored before origins were). */
  getApiKeyOrigin(): string | null;
  /** `null` or '' clears the key. `origin` defaults to DEFAULT_KEY_ORIGIN. */
  setApiKey(key: string | null, origin?: string): void;
  /**
   * Why the key cannot be kept encrypted on disk here (no OS keyring: Electron's
   * safeStorage fell back to plain text), or null. Shown in Settings as `keyStorage`.
   * Absent for stores that never write the key to disk (browser mode, tests).
   */
  storageWarning?(): string | null;
}

/** The origin (scheme://host[:port]) of a base URL; DEFAULT_KEY_ORIGIN when none is given. */
export function originOf(baseURL: string | undefined): string {
  if (!baseURL) return DEFAULT_KEY_ORIGIN;
  try {
    return new URL(baseURL).origin;
  } catch {
    throw new StudioError('invalid_input', `the summarizer base URL is not a URL: ${JSON.stringify(baseURL.slice(0, 80))}`);
  }
}

/**
 * The key a run with this summarizer may send, or undefined when there is none or the
 * summarizer needs none (extractive). Throws when a key is stored for another origin
 * than the summarizer's: the run fails before any request instead of sending the key away.
 */
/** Environment variables whose values are secrets (held by value, shared/redact.ts): …_API_KEY, …_TOKEN, …_SECRET, …_PASSWORD. */
const SECRET_ENV_NAME = /(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)($|_)/i;

/** Holds the literal values of the environment's secrets, so no text this process writes keeps them. */
export function holdEnvironmentSecrets(env: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(env)) if (value && SECRET_ENV_NAME.test(name)) holdSecret(value);
}

export function apiKeyFor(secrets: SecretStore, summarizer: SummarizerConfig): string | undefined {
  if (summarizer.kind !== 'openai') return undefined;
  const key = secrets.getApiKey();
  if (key === null) return undefined;
  holdSecret(key);
  const stored = secrets.getApiKeyOrigin() ?? DEFAULT_KEY_ORIGIN;
  const target = originOf(summarizer.baseURL);
  if (stored !== target) {
    throw new StudioError('forbidden', `the stored API key was entered for ${stored}; enter it again for ${target} (Settings) to send it there`);
  }
  return key;
}

/** The origin an environment key is for: $OPENAI_BASE_URL's, else DEFAULT_KEY_ORIGIN. */
export function envKeyOrigin(env: NodeJS.ProcessEnv): string {
  try {
    return env.OPENAI_BASE_URL ? new URL(env.OPENAI_BASE_URL).origin : DEFAULT_KEY_ORIGIN;
  } catch {
    return DEFAULT_KEY_ORIGIN;
  }
}

/** In-memory store for browser mode and tests; starts from $OPENAI_API_KEY (for $OPENAI_BASE_URL's origin) when set. */
export function memorySecretStore(env: NodeJS.ProcessEnv = process.env): SecretStore {
  let key: string | null = env.OPENAI_API_KEY && env.OPENAI_API_KEY.length > 0 ? env.OPENAI_API_KEY : null;
  let origin: string | null = key ? envKeyOrigin(env) : null;
  return {
    getApiKey: () => key,
    getApiKeyOrigin: () => origin,
    setApiKey: (next, nextOrigin) => {
      key = next && next.length > 0 ? next : null;
      origin = key ? (nextOrigin ?? DEFAULT_KEY_ORIGIN) : null;
    },
  };
}
