/**
 * Data access for the `settings` table: one JSON value per key. What the keys mean and
 * their defaults live with their users (electron/services/settings-store.ts, electron/demo.ts).
 */
import type { DB } from './db.js';
import { userPricesSchema, type UserPrices } from '../../shared/cost/prices.js';
import { userContextWindowsSchema, type UserContextWindows } from '../../shared/cost/windows.js';

/** The stored value of `key`, or undefined when the key is missing or its JSON is malformed. */
export function readSetting(db: DB, key: string): unknown {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
  if (!row) return undefined;
  try {
    return JSON.parse(row.value) as unknown;
  } catch {
    return undefined;
  }
}

/** True when the key has a row (whatever its value). */
export function hasSetting(db: DB, key: string): boolean {
  return db.prepare('SELECT 1 FROM settings WHERE key = ?').get(key) !== undefined;
}

/** Inserts or replaces the key's value (stored as JSON). */
export function writeSetting(db: DB, key: string, value: unknown): void {
  db.prepare('INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
}

/**
 * The user's prices (USD per million tokens by model; shared/cost/prices.ts): every pass,
 * replay and summarizer on this database prices with them, whoever started it (the window,
 * its worker, the CLI). {} when none are set or the stored value is malformed.
 */
export function readUserPrices(db: DB): UserPrices {
  const parsed = userPricesSchema.safeParse(readSetting(db, 'prices') ?? {});
  return parsed.success ? parsed.data : {};
}

/**
 * The user's context windows (tokens by model name; shared/cost/windows.ts): every replay and
 * projection on this database checks feasibility with them. {} when none are set or malformed.
 */
export function readUserContextWindows(db: DB): UserContextWindows {
  const parsed = userContextWindowsSchema.safeParse(readSetting(db, 'contextWindows') ?? {});
  return parsed.success ? parsed.data : {};
}
