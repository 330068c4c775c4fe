/**
 * SWE-agent classic trajectories (no function calling): each action in the assistant's
 * text and the observation in the next user message is one tool cycle, so observation
 * masking works on them ("The Complexity Trap" studies exactly this).
 *
 * The pydicom-1458 fixture's `history` (26 messages): 0 system, 1 the in-context
 * demonstration (is_demo), 2 the problem statement, then 12 assistant actions at 3, 5, ..., 25
 * (create, edit, python, find_file, open, edit ×4, python, rm, submit) and 11
 * observations at 4, 6, ..., 24. The last action (`submit`) has no observation in the
 * history: 12 tool calls, 11 cycles. Its `trajectory` has the same 12 steps, each with an
 * observation: 24 turns, 12 calls, 12 cycles.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planFor } from '../../shared/strategies/index.js';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { listToolCycles, listTurnMetas, listTurns } from '../../electron/store/turns.js';
import { importFiles, importText } from '../../electron/importers/import.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/swe-agent/SWE-agent__test_data__gpt4__swe-bench-dev-easy__pydicom__pydicom-1458.traj');

let db: DB;
beforeEach(() => {
  db = openDatabase(':memory:');
});
afterEach(() => db.close());

describe('SWE-agent classic trajectories', () => {
  it('turns each action and its observation into a tool cycle, keeping the text', () => {
    const [s] = importFiles(db, [FIXTURE]).sessions;
    expect({ turns: s.turns, toolCalls: s.toolCalls }).toEqual({ turns: 26, toolCalls: 12 });
    const cycles = listToolCycles(db, s.id);
    expect(cycles).toHaveLength(11);
    expect(cycles.map((c) => c.toolName)).toEqual(['create', 'edit', 'python', 'find_file', 'open', 'edit', 'edit', 'edit', 'edit', 'python', 'rm']);
    expect(cycles.map((c) => [c.usePosition, c.resultPosition])).toEqual(Array.from({ length: 11 }, (_, k) => [3 + 2 * k, 4 + 2 * k]));
    const turns = listTurns(db, s.id);
    const raw = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { history: Array<{ content: string }> };
    // The assistant keeps its text and gains the call; the observation's text is the result.
    expect(turns[3].blocks).toEqual([
      { type: 'text', text: raw.history[3].content },
      { type: 'tool_use', id: 'action-3', name: 'create', input: { command: 'create reproduce_bug.py' } },
    ]);
    expect(turns[4]).toMatchObject({ role: 'user', blocks: [{ type: 'tool_result', tool_use_id: 'action-3', content: raw.history[4].content, is_error: false }] });
    expect(turns[25].blocks.at(-1)).toEqual({ type: 'tool_use', id: 'action-25', name: 'submit', input: { command: 'submit' } });
    // The demonstration and the problem statement stay user text.
    expect(turns[1].blocks[0].type).toBe('text');
    expect(turns[2].blocks[0].type).toBe('text');
  });

  it('masking with a window of 3 masks every observation older than the last 3 cycles', () => {
    const [s] = importFiles(db, [FIXTURE]).sessions;
    const plan = planFor('masking', { turns: listTurnMetas(db, s.id), summaries: [], state: {}, params: { maskWindow: 3 } });
    // 11 answered calls; the last 3 (positions 19, 21, 23) keep their results: the 8 before are masked.
    expect(plan.boundaries.map((b) => b.position)).toEqual([19]);
    const masked = plan.spans.flatMap((sp) => sp.turnIds);
    const positions = listTurnMetas(db, s.id).filter((t) => masked.includes(t.id)).map((t) => t.position);
    expect(positions).toEqual([4, 6, 8, 10, 12, 14, 16, 18]);
  });

  it('reads the trajectory layout (no history) as the same cycles', () => {
    const doc = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Record<string, unknown>;
    delete doc.history;
    const [s] = importText(db, 'pydicom-trajectory-only.json', JSON.stringify(doc)).sessions;
    expect({ format: s.format, turns: s.turns, toolCalls: s.toolCalls }).toEqual({ format: 'swe-agent', turns: 24, toolCalls: 12 });
    expect(listToolCycles(db, s.id)).toHaveLength(12);
    expect(listTurns(db, s.id)[1].blocks[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'step-0' });
  });
});
