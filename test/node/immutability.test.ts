/** Turns and tool cycles are immutable in the schema; deleting a whole session is the one explicit way out. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { deleteSession, listSessions } from '../../electron/store/sessions.js';
import { listTurns, searchTurns } from '../../electron/store/turns.js';
import { importFiles } from '../../electron/importers/import.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures');
const INLINE_SIDECHAINS = path.join(FIXTURES, 'claude-code/claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');

let db: DB;
let parentId: number;
let tauId: number;
beforeEach(() => {
  db = openDatabase(':memory:');
  parentId = importFiles(db, [INLINE_SIDECHAINS]).sessions[0].id;
  tauId = importFiles(db, [TAU]).sessions[0].id;
});
afterEach(() => db.close());

const count = (sql: string, ...args: unknown[]): number => db.prepare(sql).pluck().get(...args) as number;

describe('immutable turns', () => {
  it('refuses to UPDATE a turn', () => {
    expect(() => db.prepare("UPDATE turns SET text = 'edited' WHERE session_id = ? AND position = 0").run(tauId)).toThrow('turns are immutable: imported turns are never changed');
    expect(listTurns(db, tauId)[0].blocks[0]).toMatchObject({ type: 'text' });
    expect(() => db.prepare('UPDATE turns SET token_count = 0').run()).toThrow('turns are immutable');
  });

  it('refuses to DELETE a turn outside a session deletion', () => {
    expect(() => db.prepare('DELETE FROM turns WHERE session_id = ? AND position = 3').run(tauId)).toThrow('turns are immutable: delete the whole session instead');
    expect(count('SELECT COUNT(*) FROM turns WHERE session_id = ?', tauId)).toBe(46);
  });

  it('refuses to change or delete tool cycles', () => {
    expect(() => db.prepare('UPDATE tool_cycles SET is_error = 1').run()).toThrow('tool cycles are immutable');
    expect(() => db.prepare('DELETE FROM tool_cycles WHERE session_id = ?').run(tauId)).toThrow('tool cycles are immutable: delete the whole session instead');
  });

  it('deletes a whole session with its child sessions, cycles, compactions, model calls and search entries', () => {
    expect(searchTurns(db, 'package.json').some((h) => h.sessionId !== tauId)).toBe(true);
    expect(listSessions(db)).toHaveLength(4);
    expect(count('SELECT COUNT(*) FROM model_calls WHERE session_id <> ?', tauId)).toBeGreaterThan(0);
    expect(deleteSession(db, parentId)).toBe(true);
    expect(listSessions(db).map((s) => s.id)).toEqual([tauId]);
    expect(count('SELECT COUNT(*) FROM turns WHERE session_id <> ?', tauId)).toBe(0);
    expect(count('SELECT COUNT(*) FROM tool_cycles WHERE session_id <> ?', tauId)).toBe(0);
    expect(count('SELECT COUNT(*) FROM model_calls WHERE session_id <> ?', tauId)).toBe(0);
    expect(count('SELECT COUNT(*) FROM session_deletions')).toBe(0);
    expect(searchTurns(db, 'package.json').filter((h) => h.sessionId !== tauId)).toEqual([]);
    // The other session is untouched and still protected.
    expect(count('SELECT COUNT(*) FROM turns WHERE session_id = ?', tauId)).toBe(46);
    expect(() => db.prepare('DELETE FROM turns WHERE session_id = ?').run(tauId)).toThrow('turns are immutable');
    expect(deleteSession(db, parentId)).toBe(false);
  });
});
