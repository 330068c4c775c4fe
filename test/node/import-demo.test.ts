/** The bundled demo session: imported on first start, once per database, never brought back after deletion. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { deleteSession, listSessions } from '../../electron/store/sessions.js';
import { DEMO_FILE, DEMO_SETTING_KEY, ensureDemoSession } from '../../electron/demo.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RESOURCES = path.join(ROOT, 'resources');

let db: DB;
beforeEach(() => {
  db = openDatabase(':memory:');
});
afterEach(() => db.close());

it('bundles a byte-for-byte copy of an MIT fixture with its attribution', () => {
  const demo = fs.readFileSync(path.join(RESOURCES, 'demo', DEMO_FILE));
  expect(demo.equals(fs.readFileSync(path.join(ROOT, 'test/fixtures/claude-code', DEMO_FILE)))).toBe(true);
  const attribution = fs.readFileSync(path.join(RESOURCES, 'demo', 'ATTRIBUTION.md'), 'utf8');
  for (const fact of ['marot/spotter', '8cc42b0b', 'test/fixtures/transcripts/', '258c7280-ae70-4798-800f-63464d01a85d', 'MIT']) expect(attribution).toContain(fact);
});

it('imports the demo on first start and remembers it', () => {
  const first = ensureDemoSession(db, RESOURCES);
  expect(first.imported).toBe(true);
  const sessions = listSessions(db);
  // The spotter session alone (its subagent files are not bundled): 306 turns, 186 tool calls,
  // 140,001 tokens (o200k), and Claude Code's one automatic compaction, the figures
  // test/e2e/studio.spec.ts pins for the same file imported through the window.
  expect(sessions.map((s) => [s.id, s.format, s.turns, s.toolCalls, s.tokens, s.externalCompactions, s.title])).toEqual([[first.sessionId, 'claude-code', 306, 186, 140001, 1, 'Implement spotter-gqc']]);
  const remembered = JSON.parse(db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(DEMO_SETTING_KEY) as string) as { sessionId: number };
  expect(remembered.sessionId).toBe(first.sessionId);
  expect(ensureDemoSession(db, RESOURCES)).toEqual({ imported: false, sessionId: null });
  expect(listSessions(db)).toHaveLength(1);
});

it('does not bring the demo back after the user deleted it', () => {
  const { sessionId } = ensureDemoSession(db, RESOURCES);
  deleteSession(db, sessionId!);
  expect(ensureDemoSession(db, RESOURCES).imported).toBe(false);
  expect(listSessions(db)).toEqual([]);
});

it('does nothing, and remembers nothing, when the resources folder has no demo', () => {
  expect(ensureDemoSession(db, path.join(ROOT, 'no-such-resources'))).toEqual({ imported: false, sessionId: null });
  expect(db.prepare('SELECT COUNT(*) FROM settings').pluck().get()).toBe(0);
  expect(ensureDemoSession(db, RESOURCES).imported).toBe(true);
});
