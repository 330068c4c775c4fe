/**
 * The demo session: on the app's first start, one real transcript (MIT, see
 * resources/demo/ATTRIBUTION.md) is imported so a new user sees something real
 * without a file. It happens once per database: the `demoImported` setting remembers
 * it, so a user who deletes the demo does not get it back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeTransaction, type DB } from './store/db.js';
import { importFiles } from './importers/import.js';
import { hasSetting, writeSetting } from './store/settings.js';

/** The bundled transcript, under `<resourcesDir>/demo/`. */
export const DEMO_FILE = 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl';
export const DEMO_SETTING_KEY = 'demoImported';

export interface DemoResult {
  /** True when this call imported it. */
  imported: boolean;
  /** The demo session's id when imported now (or found as already present). */
  sessionId: number | null;
}

/**
 * Imports the demo once per database. `resourcesDir` is the folder holding `demo/`
 * (the repo's `resources/` in development, `process.resourcesPath` when packaged).
 * A missing demo file is not an error (a build without resources): nothing is remembered.
 */
export function ensureDemoSession(db: DB, resourcesDir: string): DemoResult {
  if (hasSetting(db, DEMO_SETTING_KEY)) return { imported: false, sessionId: null };
  const file = path.join(resourcesDir, 'demo', DEMO_FILE);
  if (!fs.existsSync(file)) return { imported: false, sessionId: null };
  return writeTransaction(db, (): DemoResult => {
    const report = importFiles(db, [file], { discoverSubagents: false });
    const top = report.sessions.find((s) => s.parentSessionId === null) ?? null;
    writeSetting(db, DEMO_SETTING_KEY, { at: new Date().toISOString(), sessionId: top?.id ?? null });
    return { imported: top !== null && !top.duplicate, sessionId: top?.id ?? null };
  });
}
