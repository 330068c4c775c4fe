/**
 * The window's settings (summarizer choice, concurrency, tokenizer, the user's prices and context windows): their defaults and
 * validation, over the store's `settings` table (electron/store/settings.ts). The API
 * key is NOT here: it goes to the SecretStore and only `hasApiKey` is ever reported back.
 */
import { holdSecret } from '../held-secrets.js';
import { writeTransaction, type DB } from '../store/db.js';
import { readSetting, readUserContextWindows, readUserPrices, writeSetting } from '../store/settings.js';
import { SummarizerConfigSchema, TokenizerSchema, type OperationInput, type Settings, type SummarizerConfig } from '../../shared/contract.js';
import { originOf, type SecretStore } from './secrets.js';

/** Defaults: the offline extractive summarizer, 4 concurrent summaries (two-line's default), o200k_base. */
export const DEFAULT_SETTINGS = {
  summarizer: { kind: 'extractive' } as SummarizerConfig,
  concurrency: 4,
  tokenizer: 'o200k_base' as const,
};

/** Settings as stored, each falling back to its default when missing or malformed. */
export function readSettings(db: DB, secrets: SecretStore): Settings {
  const summarizer = SummarizerConfigSchema.safeParse(readSetting(db, 'summarizer'));
  const tokenizer = TokenizerSchema.safeParse(readSetting(db, 'tokenizer'));
  const concurrency = readSetting(db, 'concurrency');
  return {
    summarizer: summarizer.success ? summarizer.data : DEFAULT_SETTINGS.summarizer,
    hasApiKey: secrets.getApiKey() !== null,
    concurrency: typeof concurrency === 'number' && Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 32 ? concurrency : DEFAULT_SETTINGS.concurrency,
    tokenizer: tokenizer.success ? tokenizer.data : DEFAULT_SETTINGS.tokenizer,
    prices: readUserPrices(db),
    contextWindows: readUserContextWindows(db),
    ...keyStorageNotice(secrets),
  };
}

/** `keyStorage` when the SecretStore cannot keep the key safely at rest (Electron's safeStorage on a Linux without a keyring). */
function keyStorageNotice(secrets: SecretStore): Pick<Settings, 'keyStorage'> {
  const warning = secrets.storageWarning?.() ?? null;
  return warning ? { keyStorage: { encrypted: false, warning } } : {};
}

/** Applies the given fields (absent ones unchanged) and returns the new settings. */
export function writeSettings(db: DB, secrets: SecretStore, input: OperationInput<'setSettings'>): Settings {
  // The key is bound to the origin of the summarizer in effect: this request's, else the stored one's.
  const keyOrigin = input.apiKey ? originOf((input.summarizer ?? readSettings(db, secrets).summarizer).baseURL) : undefined;
  writeTransaction(db, () => {
    if (input.summarizer !== undefined) writeSetting(db, 'summarizer', input.summarizer);
    if (input.concurrency !== undefined) writeSetting(db, 'concurrency', input.concurrency);
    if (input.tokenizer !== undefined) writeSetting(db, 'tokenizer', input.tokenizer);
    if (input.prices !== undefined) writeSetting(db, 'prices', input.prices);
    if (input.contextWindows !== undefined) writeSetting(db, 'contextWindows', input.contextWindows);
  });
  holdSecret(input.apiKey);
  if (input.apiKey !== undefined) secrets.setApiKey(input.apiKey === '' ? null : input.apiKey, keyOrigin);
  return readSettings(db, secrets);
}

/**
 * The hosts (`host[:port]`) whose links open in the system browser without asking
 * (electron/shell/external-links.ts; "Always open links to <host>"). [] by default.
 */
export function readAllowedLinkHosts(db: DB): string[] {
  const hosts = readSetting(db, 'allowedLinkHosts');
  return Array.isArray(hosts) ? hosts.filter((h): h is string => typeof h === 'string') : [];
}

export function allowLinkHost(db: DB, host: string): void {
  const hosts = readAllowedLinkHosts(db);
  if (!hosts.includes(host)) writeSetting(db, 'allowedLinkHosts', [...hosts, host].sort());
}

/** Window theme (Electron's nativeTheme.themeSource), chosen in View > Theme. Default 'system'. */
export function readTheme(db: DB): 'system' | 'light' | 'dark' {
  const t = readSetting(db, 'theme');
  return t === 'light' || t === 'dark' ? t : 'system';
}

export function writeTheme(db: DB, theme: 'system' | 'light' | 'dark'): void {
  writeSetting(db, 'theme', theme);
}
