/**
 * tau-bench results (sierra-research/tau-bench, historical_trajectories/gpt-4o-airline.json):
 * `{task_id, reward, info, traj, trial}` records, an array or one. Each record is a session;
 * each `traj` message one turn; each `tool_calls` entry one tool call. Counted with Python
 * over the vendored files: records 0-2 have 32 / 12 / 24 messages with 8 / 0 / 7 tool calls
 * (every call answered by a `role: tool` message), record 7 has 26 messages and 5 calls.
 * All four have reward 0.0 and trial 0.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { getSession } from '../../electron/store/sessions.js';
import { listToolCycles } from '../../electron/store/turns.js';
import { importFiles, importText } from '../../electron/importers/import.js';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/tau-bench');
const RECORDS_0_2 = path.join(DIR, 'tau-bench__gpt-4o-airline__records-0-2.json');
const RECORD_7 = path.join(DIR, 'tau-bench__gpt-4o-airline__record-7.json');

let db: DB;
beforeEach(() => {
  db = openDatabase(':memory:');
});
afterEach(() => db.close());

describe('tau-bench results', () => {
  it('imports an array of records as one session each, titled by task id and first request', () => {
    const { sessions } = importFiles(db, [RECORDS_0_2]);
    expect(sessions.map((s) => [s.format, s.turns, s.toolCalls])).toEqual([
      ['tau-bench', 32, 8],
      ['tau-bench', 12, 0],
      ['tau-bench', 24, 7],
    ]);
    expect(sessions.map((s) => listToolCycles(db, s.id).length)).toEqual([8, 0, 7]);
    expect(sessions[0].title).toBe("task 0: Hi! I'm looking to book a flight from New York to Seattle on May 20th.");
    expect(sessions[1].title.startsWith('task 1: Hi there! I need to change my return flight from Texas to Newark.')).toBe(true);
    const meta = getSession(db, sessions[2].id)!.metadata as Record<string, unknown>;
    expect({ taskId: meta.taskId, reward: meta.reward, trial: meta.trial }).toEqual({ taskId: 2, reward: 0, trial: 0 });
    expect(meta.info).toMatchObject({ source: expect.any(String) });
  });

  it('imports a single record', () => {
    const { sessions } = importFiles(db, [RECORD_7]);
    expect(sessions.map((s) => [s.format, s.turns, s.toolCalls, listToolCycles(db, s.id).length])).toEqual([['tau-bench', 26, 5, 5]]);
    expect(sessions[0].title).toMatch(/^task 7: Hi! I was hoping to change my flight reservation for a day later/);
  });

  it('--format openai on a tau-bench file names the right format', () => {
    expect(() => importFiles(db, [RECORD_7], { format: 'openai' })).toThrow(/tau-bench results file .*--format tau-bench/);
    expect(() => importText(db, 'r.json', fs.readFileSync(RECORDS_0_2, 'utf8'), { format: 'openai' })).toThrow(/--format tau-bench/);
    // Forcing the right format works.
    expect(importFiles(db, [RECORD_7], { format: 'tau-bench' }).sessions[0].turns).toBe(26);
  });
});
