/**
 * Every real transcript in test/fixtures/<format>/ imported through the real importer into
 * a real SQLite store. The expected numbers were checked by hand (an independent
 * Python count over the raw files: records grouped by message.id, noise skipped,
 * parallel tool results merged; turns before the compact_boundary counted).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { get_encoding } from 'tiktoken';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blockToText, pairToolCycles } from '../../shared/model/turn.js';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { getSession } from '../../electron/store/sessions.js';
import { listExternalCompactions, listToolCycles, listTurns } from '../../electron/store/turns.js';
import { importFiles, type ImportedSessionInfo } from '../../electron/importers/import.js';
import { fixtureNames } from '../helpers/fixture-sessions.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures');
const cc = (name: string): string => path.join(FIXTURES, 'claude-code', name);

interface Expected {
  format: string;
  turns: number;
  toolCalls: number;
  /** tool_cycles rows: tool_results paired with a tool_use. */
  cycles: number;
  compactions?: number;
  title?: string;
  agentId?: string | null;
  children?: Expected[];
}

const SESSION = '258c7280-ae70-4798-800f-63464d01a85d';
const WORKTREES = 'claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1';

/** file (relative to the fixtures folder) -> the sessions it must produce (subagent files found beside it become children). */
const CASES: Array<{ file: string; expected: Expected[] }> = [
  { file: 'claude-code/claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl', expected: [{ format: 'claude-code', turns: 14, toolCalls: 12, cycles: 12, title: '/init' }] },
  {
    file: 'claude-code/claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
    expected: [
      {
        format: 'claude-code',
        turns: 20,
        toolCalls: 13,
        cycles: 13,
        title: '/orchestrator @CLAUDE.md を最新の状態にアップデートしてください',
        // Old layout: the two Task subagents are inline isSidechain lines, one chain each.
        children: [
          { format: 'claude-code', turns: 6, toolCalls: 2, cycles: 2, agentId: 'sidechain-6340ddef' },
          { format: 'claude-code', turns: 14, toolCalls: 6, cycles: 6, agentId: 'sidechain-83e2917c' },
        ],
      },
    ],
  },
  { file: 'claude-code/spotter__tool_heavy.jsonl', expected: [{ format: 'claude-code', turns: 14, toolCalls: 6, cycles: 6, title: 'start phoenix in background' }] },
  { file: 'claude-code/spotter__subagent.jsonl', expected: [{ format: 'claude-code', turns: 26, toolCalls: 16, cycles: 16 }] },
  {
    file: `claude-code/spotter__${SESSION}.jsonl`,
    expected: [
      {
        format: 'claude-code',
        turns: 306,
        toolCalls: 186,
        cycles: 186,
        compactions: 1,
        title: 'Implement spotter-gqc',
        children: [
          { format: 'claude-code', turns: 6, toolCalls: 2, cycles: 2, agentId: 'a881341' },
          // Claude Code's own summarization call for the compaction.
          { format: 'claude-code', turns: 2, toolCalls: 0, cycles: 0, agentId: 'acompact-fffbd0' },
        ],
      },
    ],
  },
  { file: 'claude-code/claude-code-log__-Users-dain-workspace-JSSoundRecorder__7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl', expected: [{ format: 'claude-code', turns: 74, toolCalls: 71, cycles: 71, title: '/init' }] },
  {
    file: 'claude-code/claude-code-log__-Users-dain-workspace-claude-code-log-sample__fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl',
    // Its 15 summary records name other sessions' leaves: the title is the first prompt.
    expected: [{ format: 'claude-code', turns: 70, toolCalls: 32, cycles: 32, title: 'Hey Claude, can you please add a Github Action to run tests and linting? You ca…' }],
  },
  // 2.0.x sibling agent files whose session file is not among the fixtures: sessions of their own.
  { file: 'claude-code/claude-code-log__-Users-dain-workspace-coderabbit-review-helper__agent-2b93909d.jsonl', expected: [{ format: 'claude-code', turns: 2, toolCalls: 0, cycles: 0, title: 'Warmup', agentId: '2b93909d' }] },
  { file: 'claude-code/claude-code-log__-Users-dain-workspace-coderabbit-review-helper__agent-645808c9.jsonl', expected: [{ format: 'claude-code', turns: 2, toolCalls: 0, cycles: 0, title: 'Warmup', agentId: '645808c9' }] },
  { file: 'claude-code/claude-code-log__-Users-dain-workspace-coderabbit-review-helper__agent-ea02459f.jsonl', expected: [{ format: 'claude-code', turns: 10, toolCalls: 14, cycles: 14, agentId: 'ea02459f' }] },
  {
    file: `claude-code/${WORKTREES}.jsonl`,
    expected: [
      {
        format: 'claude-code',
        turns: 36,
        toolCalls: 40,
        cycles: 40,
        children: [
          { format: 'claude-code', turns: 12, toolCalls: 7, cycles: 7, agentId: 'a36efb2a1231c41e2', title: 'Round 2: alice comparison' },
          { format: 'claude-code', turns: 40, toolCalls: 24, cycles: 24, agentId: 'a4ca7529859c158c2', title: 'Research Claude Code plan mode' },
          { format: 'claude-code', turns: 30, toolCalls: 17, cycles: 17, agentId: 'a52886dc180afb356', title: 'Research Claude Code teammates' },
          { format: 'claude-code', turns: 10, toolCalls: 6, cycles: 6, agentId: 'a6aa8ad077d9ea083', title: 'Round 2: carol comparison' },
          { format: 'claude-code', turns: 30, toolCalls: 17, cycles: 17, agentId: 'ab1e6e141221a29ab', title: 'Research Steve Yegge Beads' },
          { format: 'claude-code', turns: 10, toolCalls: 6, cycles: 6, agentId: 'aef063ba534d73153', title: 'Round 2: bob comparison' },
        ],
      },
    ],
  },
  { file: 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json', expected: [{ format: 'openai', turns: 46, toolCalls: 9, cycles: 9 }] },
  // tau-bench results records (one session each; counts explained in import-tau-bench.test.ts).
  {
    file: 'tau-bench/tau-bench__gpt-4o-airline__records-0-2.json',
    expected: [
      { format: 'tau-bench', turns: 32, toolCalls: 8, cycles: 8 },
      { format: 'tau-bench', turns: 12, toolCalls: 0, cycles: 0 },
      { format: 'tau-bench', turns: 24, toolCalls: 7, cycles: 7 },
    ],
  },
  { file: 'tau-bench/tau-bench__gpt-4o-airline__record-7.json', expected: [{ format: 'tau-bench', turns: 26, toolCalls: 5, cycles: 5 }] },
  { file: 'swe-agent/SWE-agent__demonstrations__replay__marshmallow-1867__function_calling_replace_from_source.traj', expected: [{ format: 'swe-agent', turns: 28, toolCalls: 13, cycles: 13, title: 'TimeDelta serialization precision' }] },
  // Classic SWE-agent: each action in the text + the next user message is a tool cycle (12 actions, the last, submit, unanswered).
  { file: 'swe-agent/SWE-agent__test_data__gpt4__swe-bench-dev-easy__pydicom__pydicom-1458.traj', expected: [{ format: 'swe-agent', turns: 26, toolCalls: 12, cycles: 11 }] },
  // 18 events, 8 of them bookkeeping (state changes, null observations).
  { file: 'openhands/OpenHands__tests_runtime_trajs__basic_gui_mode.json', expected: [{ format: 'openhands', turns: 10, toolCalls: 4, cycles: 4 }] },
  // 49 events: 2 recall events skipped; the final `finish` call has no observation.
  { file: 'openhands/OpenHands__multi_swe_bench_examples_output__line0__ponylang__ponyc-4595.json', expected: [{ format: 'openhands', turns: 47, toolCalls: 23, cycles: 22, title: 'ponylang__ponyc-4595' }] },
];

let db: DB;
beforeEach(() => {
  db = openDatabase(':memory:');
});
afterEach(() => db.close());

function check(info: ImportedSessionInfo, exp: Expected, all: ImportedSessionInfo[]): void {
  expect(info.duplicate).toBe(false);
  expect({ format: info.format, turns: info.turns, toolCalls: info.toolCalls, externalCompactions: info.externalCompactions }).toEqual({
    format: exp.format,
    turns: exp.turns,
    toolCalls: exp.toolCalls,
    externalCompactions: exp.compactions ?? 0,
  });
  expect(listToolCycles(db, info.id)).toHaveLength(exp.cycles);
  if (exp.title !== undefined) expect(info.title).toBe(exp.title);
  if (exp.agentId !== undefined) expect(info.agentId).toBe(exp.agentId);
  const children = all.filter((s) => s.parentSessionId === info.id);
  expect(children).toHaveLength(exp.children?.length ?? 0);
  (exp.children ?? []).forEach((c, i) => check(children[i], c, all));
}

describe('importing every real fixture', () => {
  for (const { file, expected } of CASES) {
    it(`imports ${file} with the hand-checked counts`, () => {
      const report = importFiles(db, [path.join(FIXTURES, file)]);
      const tops = report.sessions.filter((s) => s.parentSessionId === null);
      expect(tops).toHaveLength(expected.length);
      expected.forEach((exp, i) => check(tops[i], exp, report.sessions));
      // Stored totals are the sums of the stored turns.
      for (const s of report.sessions) {
        const turns = listTurns(db, s.id);
        expect(turns).toHaveLength(s.turns);
        expect(turns.reduce((n, t) => n + t.tokenCount, 0)).toBe(s.tokens);
        expect(turns.map((t) => t.position)).toEqual(turns.map((_, i) => i));
        // The streamed pairing in the writer agrees with the shared pairToolCycles.
        expect(listToolCycles(db, s.id).map((c) => [c.usePosition, c.resultPosition, c.toolUseId])).toEqual(
          pairToolCycles(turns)
            .map((c) => [c.usePosition, c.resultPosition, c.toolUseId])
            .sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number)),
        );
      }
    });
  }

  it('covers every transcript file in the fixtures folder', () => {
    const covered = new Set<string>();
    for (const { file } of CASES) {
      covered.add(file);
      const report = importFiles(db, [path.join(FIXTURES, file)]);
      for (const s of report.sessions) covered.add(`${path.basename(path.dirname(path.join(FIXTURES, file)))}/${s.sourceFile}`);
    }
    // The real transcripts: not the README, the LICENSE files, or the hand-written codex/ folder.
    const all = fixtureNames();
    expect(all.filter((f) => !covered.has(f))).toEqual([]);
    // 19 Claude Code files (+ 6 .meta.json), 1 OpenAI, 2 OpenHands, 2 SWE-agent, 2 tau-bench.
    expect(all).toHaveLength(26);
  });
});

describe('Claude Code specifics', () => {
  it('records the spotter 258c7280 automatic compaction: preTokens 167094, turns 0-206 summarized, boundary before turn 207', () => {
    const report = importFiles(db, [cc(`spotter__${SESSION}.jsonl`)]);
    const [compaction] = listExternalCompactions(db, report.sessions[0].id);
    expect(compaction).toMatchObject({ trigger: 'auto', preTokens: 167094, firstPosition: 0, lastPosition: 206, boundaryPosition: 207, sourceId: 'd46d6800-2f43-4360-ba84-c1de9c1ecbae' });
    expect(compaction.summaryText.startsWith('This session is being continued from a previous conversation that ran out of context.')).toBe(true);
    expect(compaction.summaryTokenCount).toBeGreaterThan(1000);
    // The summary record is not a turn: no turn text starts with it.
    const turns = listTurns(db, report.sessions[0].id);
    expect(turns.some((t) => t.blocks.some((b) => b.type === 'text' && b.text.startsWith('This session is being continued')))).toBe(false);
    // The first turn after the boundary is the model continuing.
    expect(turns[207].role).toBe('assistant');
  });

  it('groups the lines of one API message into one turn (262 assistant lines -> fewer turns)', () => {
    const report = importFiles(db, [cc(`spotter__${SESSION}.jsonl`)], { discoverSubagents: false });
    const turns = listTurns(db, report.sessions[0].id);
    const assistant = turns.filter((t) => t.role === 'assistant');
    // 299 assistant lines, 152 message ids.
    expect(assistant).toHaveLength(152);
    expect(assistant.reduce((n, t) => n + t.sourceIds.length, 0)).toBe(299);
  });

  it('counts the skipped noise records in the session metadata', () => {
    const report = importFiles(db, [cc(`spotter__${SESSION}.jsonl`)], { discoverSubagents: false });
    const meta = getSession(db, report.sessions[0].id)!.metadata;
    expect(meta.skipped).toEqual({ progress: 1333, 'file-history-snapshot': 28, 'queue-operation': 6, 'system:stop_hook_summary': 3, 'system:turn_duration': 1 });
    const worktrees = importFiles(db, [cc(`${WORKTREES}.jsonl`)], { discoverSubagents: false });
    expect(getSession(db, worktrees.sessions[0].id)!.metadata.skipped).toEqual({
      'permission-mode': 8,
      attachment: 49,
      'file-history-snapshot': 3,
      'last-prompt': 7,
      'system:stop_hook_summary': 2,
      'system:turn_duration': 2,
      'system:away_summary': 2,
      'user:isMeta': 1,
    });
  });

  it('never mixes inline sidechain turns into the parent session', () => {
    const report = importFiles(db, [cc('claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl')]);
    const [parent, ...children] = report.sessions;
    expect(listTurns(db, parent.id).every((t) => t.agentId === null)).toBe(true);
    for (const c of children) expect(listTurns(db, c.id).every((t) => t.agentId === c.agentId)).toBe(true);
    expect(children[0].title).toBe('Examine the package.json file(s) in /path/to/Demo and any subdirectories. Focus…');
  });

  it('links subagent files passed explicitly to their session file, and only once', () => {
    const agent = cc(`spotter__${SESSION}__subagents__agent-a881341.jsonl`);
    const report = importFiles(db, [agent, cc(`spotter__${SESSION}.jsonl`)], { discoverSubagents: false });
    expect(report.sessions.map((s) => [s.parentSessionId === null, s.agentId])).toEqual([[true, null], [false, 'a881341']]);
    expect(report.sessions[1].parentSessionId).toBe(report.sessions[0].id);
  });

  it('finds subagents in the real nested layout <session>/subagents/agent-<id>.jsonl with .meta.json', () => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'cs-nested-'));
    try {
      const stem = 'ef958aa1-0e93-49f0-bb71-150f63befcd1';
      fs.copyFileSync(cc(`${WORKTREES}.jsonl`), path.join(dir, `${stem}.jsonl`));
      fs.mkdirSync(path.join(dir, stem, 'subagents'), { recursive: true });
      for (const id of ['a36efb2a1231c41e2', 'a4ca7529859c158c2']) {
        for (const ext of ['jsonl', 'meta.json']) fs.copyFileSync(cc(`${WORKTREES}__subagents__agent-${id}.${ext}`), path.join(dir, stem, 'subagents', `agent-${id}.${ext}`));
      }
      const report = importFiles(db, [path.join(dir, `${stem}.jsonl`)]);
      expect(report.sessions.map((s) => [s.turns, s.agentId, s.title])).toEqual([
        [36, null, "OK, we're going to make a little experiment here. Pretend we have a list of tas…"],
        [12, 'a36efb2a1231c41e2', 'Round 2: alice comparison'],
        [40, 'a4ca7529859c158c2', 'Research Claude Code plan mode'],
      ]);
      expect(report.sessions[1].sourceFile).toBe('agent-a36efb2a1231c41e2.jsonl');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('merges parallel tool results into one user turn, as the API received them', () => {
    const report = importFiles(db, [cc('claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl')]);
    const turns = listTurns(db, report.sessions[0].id);
    // Message o1poH3 made three calls (Glob, Glob, TodoWrite); their three result lines are one turn.
    const results = turns.find((t) => t.blocks.length === 3 && t.blocks.every((b) => b.type === 'tool_result'));
    expect(results?.role).toBe('user');
    expect(results?.sourceIds).toHaveLength(3);
  });
});

describe('other formats', () => {
  it('pairs a repeated tau-bench tool call id with the nearest preceding call', () => {
    const report = importFiles(db, [path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json')]);
    const cycles = listToolCycles(db, report.sessions[0].id).filter((c) => c.toolUseId === 'call_cVVsJ9hu9hK5CQyt1F4wULOk');
    expect(cycles.map((c) => [c.usePosition, c.resultPosition, c.toolName])).toEqual([
      [4, 5, 'get_reservation_details'],
      [20, 21, 'search_direct_flight'],
    ]);
    const turns = listTurns(db, report.sessions[0].id);
    expect(turns[0].role).toBe('system');
    expect(turns[5]).toMatchObject({ role: 'tool' });
    expect(turns[4].blocks).toEqual([{ type: 'tool_use', id: 'call_cVVsJ9hu9hK5CQyt1F4wULOk', name: 'get_reservation_details', input: { reservation_id: 'XEWRD9' } }]);
  });

  it('marks a failed OpenHands command result as an error and keeps the thought as text', () => {
    const report = importFiles(db, [path.join(FIXTURES, 'openhands/OpenHands__multi_swe_bench_examples_output__line0__ponylang__ponyc-4595.json')]);
    const cycles = listToolCycles(db, report.sessions[0].id);
    // success: false on the five commands that exited non-zero (exit codes 127, 2, 2, 127, 127).
    expect(cycles.filter((c) => c.isError).map((c) => c.toolUseId)).toEqual(['toolu_16', 'toolu_17', 'toolu_18', 'toolu_19', 'toolu_21']);
    const turns = listTurns(db, report.sessions[0].id);
    expect(turns.slice(0, 3).map((t) => t.role)).toEqual(['system', 'user', 'assistant']);
    expect(turns[2].blocks.map((b) => b.type)).toEqual(['text', 'tool_use']);
    expect(turns[2].blocks[1]).toEqual({ type: 'tool_use', id: 'toolu_01', name: 'execute_bash', input: { command: 'ls -l /workspace/ponylang__ponyc__0.1' } });
  });
});

describe('token counts', () => {
  it('stores per turn the o200k count of every block (tool inputs and results too), equal to tiktoken', () => {
    const report = importFiles(db, [cc('spotter__subagent.jsonl')]);
    const enc = get_encoding('o200k_base');
    try {
      const turns = listTurns(db, report.sessions[0].id);
      for (const t of turns) {
        // Literal special-token text counts as ordinary text.
        const expected = t.blocks.reduce((n, b) => n + enc.encode(blockToText(b), [], []).length, 0);
        expect(t.tokenCount).toBe(expected);
      }
      expect(report.sessions[0].tokens).toBe(12799);
    } finally {
      enc.free();
    }
  });

  it('counts with cl100k_base when asked, and records the tokenizer', () => {
    const report = importFiles(db, [cc('spotter__subagent.jsonl')], { tokenizer: 'cl100k_base' });
    const enc = get_encoding('cl100k_base');
    try {
      const turns = listTurns(db, report.sessions[0].id);
      const expected = turns.reduce((n, t) => n + t.blocks.reduce((m, b) => m + enc.encode(blockToText(b), [], []).length, 0), 0);
      expect(report.sessions[0]).toMatchObject({ tokens: expected, tokenizer: 'cl100k_base' });
      expect(expected).not.toBe(12799);
    } finally {
      enc.free();
    }
  });
});
