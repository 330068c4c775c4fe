/**
 * Where the summarizer's API key lives. The key is write-only from the window's side:
 * getSettings reports `hasApiKey`, never the key. Electron keeps it encrypted with
 * safeStorage (electron/shell/settings.ts); browser mode and tests keep it in process memory,
 * seeded from OPENAI_API_KEY.
 */
export interface SecretStore {
  getApiKey(): string | null;
  /** `null` or '' clears the key. */
  setApiKey(key: string | null): void;
}

/** In-memory store for browser mode and tests; starts from $OPENAI_API_KEY when set. */
export function memorySecretStore(env: NodeJS.ProcessEnv = process.env): SecretStore {
  let key: string | null = env.OPENAI_API_KEY && env.OPENAI_API_KEY.length > 0 ? env.OPENAI_API_KEY : null;
  return {
    getApiKey: () => key,
    setApiKey: (next) => {
      key = next && next.length > 0 ? next : null;
    },
  };
}
