/**
 * The formats without a real fixture (Anthropic request bodies, ShareGPT, OpenAI JSONL
 * variants, the hand-written Codex rollout), format detection, duplicate detection by
 * content hash, and importText = importFiles for the same bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { listSessions } from '../../electron/store/sessions.js';
import { listExternalCompactions, listToolCycles, listTurns } from '../../electron/store/turns.js';
import { importFiles, importText } from '../../electron/importers/import.js';
import { detectDocument, detectJsonlRecord } from '../../electron/importers/detect.js';
import { dbSnapshot } from '../helpers/db-snapshot.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures');
const CODEX = path.join(ROOT, 'test/fixtures/codex/rollout-2025-09-30T09-12-01-0199a3c2-5b7e-7d40-9a61-3f2e8c1d4b55.jsonl');
const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');

let db: DB;
let tmp: TempDir;
let dir: string;
beforeEach(() => {
  db = openDatabase(':memory:');
  tmp = tempDir('cs-formats-');
  dir = tmp.dir;
});
afterEach(() => {
  db.close();
  tmp.cleanup();
});

describe('Anthropic Messages request bodies', () => {
  const body = {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'You are a careful release engineer.' }],
    messages: [
      { role: 'user', content: 'Tag the release.' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Check the version first.', signature: 'sig' },
          { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'cat VERSION' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '2.4.0' }], is_error: false }] },
      { role: 'assistant', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }, { type: 'text', text: 'Tagged v2.4.0.' }] },
    ],
  };

  it('maps system, thinking, tool_use, tool_result and images (as placeholders) into turns', () => {
    const report = importText(db, 'request.json', JSON.stringify(body));
    expect(report.sessions.map((s) => [s.format, s.turns, s.toolCalls, s.title])).toEqual([['anthropic', 5, 1, 'Tag the release.']]);
    const turns = listTurns(db, report.sessions[0].id);
    expect(turns.map((t) => t.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    expect(turns[2].blocks).toEqual([
      { type: 'thinking', thinking: 'Check the version first.' },
      { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'cat VERSION' } },
    ]);
    expect(turns[3].blocks).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: '2.4.0', is_error: false }]);
    expect(turns[4].blocks[0]).toEqual({ type: 'image', mediaType: 'image/png', sizeBytes: 8 });
    expect(turns[4].model).toBe('claude-sonnet-4-5');
    expect(listToolCycles(db, report.sessions[0].id)).toEqual([{ toolUseId: 'toolu_1', toolName: 'bash', usePosition: 2, resultPosition: 3, isError: false }]);
  });

  it('detects an Anthropic body by its top-level system or its blocks, an OpenAI one otherwise', () => {
    expect(detectDocument(body, 'x.json')).toBe('anthropic');
    expect(detectDocument({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'b' }] }] }, 'x.json')).toBe('anthropic');
    expect(detectDocument({ messages: [{ role: 'system', content: 'hi' }] }, 'x.json')).toBe('openai');
  });
});

describe('ShareGPT', () => {
  it('imports one conversation, or an array of them as one session each', () => {
    const conv = (n: number): unknown => ({
      id: `c${n}`,
      conversations: [
        { from: 'system', value: 'Be brief.' },
        { from: 'human', value: `Question ${n}?` },
        { from: 'function_call', value: JSON.stringify({ name: 'lookup', arguments: { q: n } }) },
        { from: 'observation', value: `${n * 2}` },
        { from: 'gpt', value: `Answer ${n}.` },
      ],
    });
    const one = importText(db, 'one.json', JSON.stringify(conv(1)));
    expect(one.sessions.map((s) => [s.format, s.turns, s.toolCalls, s.title])).toEqual([['sharegpt', 5, 1, 'Question 1?']]);
    expect(listTurns(db, one.sessions[0].id).map((t) => t.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(listToolCycles(db, one.sessions[0].id)).toHaveLength(1);
    const many = importText(db, 'many.json', JSON.stringify([conv(2), conv(3)]));
    expect(many.sessions.map((s) => s.title)).toEqual(['Question 2?', 'Question 3?']);
  });

  it('rejects an unknown speaker with its index', () => {
    expect(() => importText(db, 'odd.json', JSON.stringify({ conversations: [{ from: 'narrator', value: 'x' }] }))).toThrow(
      'odd.json: conversations[0].from is "narrator": expected human, gpt, system, function_call or observation',
    );
  });
});

describe('OpenAI chat variants', () => {
  it('imports the same conversation from an array, {messages}, and JSONL with identical turns', () => {
    const messages = JSON.parse(fs.readFileSync(TAU, 'utf8')) as unknown[];
    const asArray = importText(db, 'a.json', JSON.stringify(messages));
    const asObject = importText(db, 'b.json', JSON.stringify({ messages }));
    const asJsonl = importText(db, 'c.jsonl', messages.map((m) => JSON.stringify(m)).join('\n'));
    const blocks = (id: number): unknown => listTurns(db, id).map((t) => [t.role, t.blocks, t.tokenCount]);
    expect(blocks(asObject.sessions[0].id)).toEqual(blocks(asArray.sessions[0].id));
    expect(blocks(asJsonl.sessions[0].id)).toEqual(blocks(asArray.sessions[0].id));
    expect(asJsonl.sessions[0]).toMatchObject({ turns: 46, toolCalls: 9, tokens: asArray.sessions[0].tokens, title: asArray.sessions[0].title });
  });

  it('keeps unparsable tool-call arguments as the raw string', () => {
    const report = importText(db, 'raw-args.json', JSON.stringify([{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a": 1' } }] }]));
    expect(listTurns(db, report.sessions[0].id)[0].blocks).toEqual([{ type: 'tool_use', id: 'c1', name: 'f', input: '{"a": 1' }]);
  });
});

describe('Codex CLI rollout (hand-written fixture from the public format)', () => {
  it('imports turns, tool calls, the recorded compaction and skips UI events', () => {
    const report = importFiles(db, [CODEX]);
    const s = report.sessions[0];
    expect([s.format, s.turns, s.toolCalls, s.externalCompactions, s.title]).toEqual(['codex', 13, 5, 1, 'The `tally sum` command crashes on an empty CSV file. Fix it and add a test.']);
    const turns = listTurns(db, s.id);
    expect(turns.map((t) => t.role).join(' ')).toBe('user user assistant tool assistant tool assistant tool assistant tool assistant tool assistant');
    // Reasoning + call from one model output are one assistant turn, stamped with turn_context's model.
    expect(turns[2].blocks.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    expect(turns[2].model).toBe('gpt-5-codex');
    expect(turns[6].blocks[1]).toMatchObject({ type: 'tool_use', name: 'apply_patch', id: 'call_Z1kp5Ws8dN3aY7fB0mQ2xH6v' });
    expect(listToolCycles(db, s.id).map((c) => [c.usePosition, c.resultPosition])).toEqual([[2, 3], [4, 5], [6, 7], [8, 9], [10, 11]]);
    const [compaction] = listExternalCompactions(db, s.id);
    expect(compaction).toMatchObject({ trigger: 'unknown', preTokens: null, firstPosition: 0, lastPosition: 9, boundaryPosition: 10 });
    expect(compaction.summaryText).toMatch(/^The user asked to fix `tally sum`/);
    expect(listSessions(db)[0].metadata).toMatchObject({
      id: '0199a3c2-5b7e-7d40-9a61-3f2e8c1d4b55',
      cli_version: '0.42.0',
      skipped: { 'event_msg:user_message': 1, 'event_msg:agent_reasoning': 1, 'event_msg:token_count': 2, 'event_msg:agent_message': 1, turn_context: 2 },
    });
  });

  it('detects Codex and Claude Code from the first JSONL record', () => {
    expect(detectJsonlRecord(JSON.parse(fs.readFileSync(CODEX, 'utf8').split('\n')[0]))).toBe('codex');
    expect(detectJsonlRecord({ type: 'summary', summary: 'x', leafUuid: 'y' })).toBe('claude-code');
    expect(detectJsonlRecord({ type: 'permission-mode', permissionMode: 'default', sessionId: 's' })).toBe('claude-code');
    expect(detectJsonlRecord({ role: 'user', content: 'hi' })).toBe('openai');
    expect(detectJsonlRecord({ instance_id: 'x', history: [] })).toBe('openhands');
  });
});

describe('duplicates', () => {
  it('reports a re-import of the same bytes as a duplicate and writes nothing', () => {
    const file = path.join(FIXTURES, 'claude-code/claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
    const first = importFiles(db, [file]);
    expect(first.sessions.map((s) => s.duplicate)).toEqual([false, false, false]);
    const snapshot = dbSnapshot(db);
    const again = importFiles(db, [file]);
    expect(again.sessions).toEqual(first.sessions.map((s) => ({ ...s, duplicate: true })));
    expect(dbSnapshot(db)).toEqual(snapshot);
    // The same bytes as text, under another name, are the same content.
    const text = importText(db, 'renamed.jsonl', fs.readFileSync(file, 'utf8'));
    expect(text.sessions.map((s) => [s.id, s.duplicate])).toEqual(first.sessions.map((s) => [s.id, true]));
    expect(dbSnapshot(db)).toEqual(snapshot);
  });

  it('reports a file given twice in one import once as new and once as duplicate', () => {
    const report = importFiles(db, [TAU, TAU]);
    expect(report.sessions.map((s) => [s.id, s.duplicate])).toEqual([[1, false], [1, true]]);
    expect(listSessions(db)).toHaveLength(1);
  });

  it('imports a copy with one changed byte as a new session', () => {
    const text = fs.readFileSync(TAU, 'utf8');
    importText(db, 'a.json', text);
    const changed = importText(db, 'a.json', text.replace('Hi!', 'Hi.'));
    expect(changed.sessions[0].duplicate).toBe(false);
    expect(listSessions(db)).toHaveLength(2);
  });
});

it('stores the same session from importText as from importFiles', () => {
  const file = path.join(FIXTURES, 'swe-agent/SWE-agent__demonstrations__replay__marshmallow-1867__function_calling_replace_from_source.traj');
  const a = importFiles(db, [file]).sessions[0];
  const other = openDatabase(':memory:');
  try {
    const b = importText(other, path.basename(file), fs.readFileSync(file, 'utf8')).sessions[0];
    const strip = (s: typeof a): unknown => ({ ...s, createdAt: undefined });
    expect(strip(b)).toEqual(strip(a));
    expect(listTurns(other, b.id)).toEqual(listTurns(db, a.id));
  } finally {
    other.close();
  }
});

it('reads a JSONL file whose name says .json', () => {
  const lines = (JSON.parse(fs.readFileSync(TAU, 'utf8')) as unknown[]).map((m) => JSON.stringify(m)).join('\n');
  const p = path.join(dir, 'messages.json');
  fs.writeFileSync(p, lines);
  expect(importFiles(db, [p]).sessions[0]).toMatchObject({ format: 'openai', turns: 46 });
});
