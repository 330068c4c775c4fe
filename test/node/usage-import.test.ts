/**
 * Model calls recorded at import (migration 003, electron/importers/usage.ts): one call per
 * assistant turn with the usage the source reported, on the real fixtures, plus hand-made
 * files for what the fixtures do not hold (placeholders, malformed usage, OpenAI usage).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { importFiles, importText } from '../../electron/importers/import.js';
import { listModelCalls } from '../../electron/store/model-calls.js';
import { listExternalCompactions, listTurns } from '../../electron/store/turns.js';
import { reportedContext } from '../../shared/usage/types.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const SPOTTER_AGENT = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d__subagents__agent-a881341.jsonl');
const INLINE_SIDECHAINS = path.join(FIXTURES, 'claude-code/claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');
const PONYC = path.join(FIXTURES, 'openhands/OpenHands__multi_swe_bench_examples_output__line0__ponylang__ponyc-4595.json');
const GUI = path.join(FIXTURES, 'openhands/OpenHands__tests_runtime_trajs__basic_gui_mode.json');
const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');

interface RawAssistant {
  line: number;
  id: string;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
}

/** The main conversation's assistant records of a Claude Code file, straight from the JSONL (no importer involved). */
function rawAssistantRecords(file: string): RawAssistant[] {
  const out: RawAssistant[] = [];
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, line) => {
      if (!text.trim()) return;
      const r = JSON.parse(text) as { type: string; isSidechain?: boolean; message?: { id: string; usage: RawAssistant['usage'] } };
      if (r.type === 'assistant' && !r.isSidechain && r.message) out.push({ line, id: r.message.id, usage: r.message.usage });
    });
  return out;
}

let db: DB;
beforeAll(() => {
  db = openDatabase(':memory:');
});
afterAll(() => db.close());

describe('Claude Code usage on spotter__258c7280 (the session Claude Code compacted)', () => {
  let sessionId: number;
  let childId: number;
  beforeAll(() => {
    const sessions = importFiles(db, [SPOTTER, SPOTTER_AGENT]).sessions;
    sessionId = sessions[0].id;
    childId = sessions.find((s) => s.sourceFile.includes('agent-a881341'))!.id;
  });

  it('records one call per message id, not per JSONL record', () => {
    const raw = rawAssistantRecords(SPOTTER);
    const ids = new Set(raw.map((r) => r.id));
    // 299 assistant records carry 152 message ids (94 messages span several records).
    expect(raw.length).toBe(299);
    expect(ids.size).toBe(152);
    const calls = listModelCalls(db, sessionId);
    expect(calls).toHaveLength(152);
    expect(new Set(calls.map((c) => c.messageId))).toEqual(ids);
    // Each call belongs to the assistant turn its message became.
    const turns = new Map(listTurns(db, sessionId).map((t) => [t.position, t]));
    for (const c of calls) {
      expect(turns.get(c.position)?.role).toBe('assistant');
      expect(turns.get(c.position)?.id).toBe(c.turnId);
      expect(c.model).toBe('claude-opus-4-6');
    }
  });

  it("takes each message's usage from its last record: the earlier ones are streaming stubs with a partial output_tokens", () => {
    const raw = rawAssistantRecords(SPOTTER);
    const last = new Map<string, RawAssistant>();
    for (const r of raw) last.set(r.id, r); // file order: the last record wins
    let stubsWithSmallerOutput = 0;
    for (const r of raw) if (r.usage.output_tokens < last.get(r.id)!.usage.output_tokens) stubsWithSmallerOutput++;
    expect(stubsWithSmallerOutput).toBeGreaterThan(100);
    for (const c of listModelCalls(db, sessionId)) {
      const u = last.get(c.messageId!)!.usage;
      expect(c.outputTokens).toBe(u.output_tokens);
      // Input and cache figures are the same on every record of a message.
      expect(c.inputTokens).toBe(u.input_tokens);
      expect(c.cacheReadTokens).toBe(u.cache_read_input_tokens);
      expect((c.cacheWrite5mTokens ?? 0) + (c.cacheWrite1hTokens ?? 0)).toBe(u.cache_creation_input_tokens);
    }
  });

  it('pins the first call, the last call before the compaction and the last call', () => {
    const calls = listModelCalls(db, sessionId);
    const [compaction] = listExternalCompactions(db, sessionId);
    expect(compaction.preTokens).toBe(167094);
    expect(compaction.boundaryPosition).toBe(207);
    const before = calls.filter((c) => c.position < compaction.boundaryPosition);
    // 102 calls before the boundary (measured: test/fixtures/README.md), 50 after.
    expect(before).toHaveLength(102);
    expect(calls[0]).toEqual({
      position: 1,
      turnId: calls[0].turnId,
      messageId: 'msg_01EEiRWuVvwAmenNJXZcerPY',
      model: 'claude-opus-4-6',
      timestamp: '2026-02-11T20:36:53.585Z',
      inputTokens: 3,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 8037,
      cacheReadTokens: 17842,
      outputTokens: 441,
      placeholder: false,
    });
    expect(reportedContext(calls[0])).toBe(25882);
    const lastBefore = before.at(-1)!;
    expect(lastBefore).toMatchObject({ position: 205, messageId: 'msg_01Gecb8FT9G9F5uN7S6DTJ9p', inputTokens: 1, cacheWrite1hTokens: 955, cacheReadTokens: 165803, outputTokens: 301 });
    expect(reportedContext(lastBefore)).toBe(166759);
    // After the boundary the context restarts from Claude Code's summary.
    expect(reportedContext(calls[102])).toBe(33960);
    expect(calls.at(-1)).toMatchObject({ position: 305, messageId: 'msg_01Fj1KJqDmbr1TzRygQfyCRH', outputTokens: 85 });
    expect(reportedContext(calls.at(-1)!)).toBe(77334);
    // This session's writes are all 1-hour writes.
    expect(calls.every((c) => c.cacheWrite5mTokens === 0 && c.cacheWrite1hTokens !== null)).toBe(true);
  });

  it('gives a subagent child session its own calls', () => {
    const child = listModelCalls(db, childId);
    expect(child).toHaveLength(3);
    expect(child.every((c) => c.model === 'claude-sonnet-4-5-20250929')).toBe(true);
    const parentIds = new Set(listModelCalls(db, sessionId).map((c) => c.messageId));
    expect(child.some((c) => parentIds.has(c.messageId))).toBe(false);
  });
});

describe('Claude Code usage elsewhere', () => {
  it('records the calls of inline sidechains in their child sessions', () => {
    const sessions = importFiles(db, [INLINE_SIDECHAINS]).sessions;
    expect(sessions.map((s) => listModelCalls(db, s.id).length)).toEqual([10, 3, 7]);
  });

  it('flags no placeholder in any Claude Code fixture (their stubs repeat the final input figures)', () => {
    const dir = path.join(FIXTURES, 'claude-code');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(dir, f));
    const local = openDatabase(':memory:');
    const sessions = importFiles(local, files).sessions;
    const calls = sessions.flatMap((s) => listModelCalls(local, s.id));
    expect(calls.length).toBeGreaterThan(300);
    expect(calls.filter((c) => c.placeholder)).toEqual([]);
    local.close();
  });

  it('flags 0–4 input tokens with no cache figures on a transcript over 1,000 tokens as a placeholder, keeping the values', () => {
    const long = 'the quick brown fox jumps over the lazy dog '.repeat(150); // ~1,350 o200k tokens
    const lines = [
      { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's', message: { role: 'user', content: 'hi' } },
      // Short transcript before it: 3 input tokens is plausible, not a placeholder.
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: 's', timestamp: '2026-01-01T00:00:01Z', message: { id: 'm1', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'hello' }], usage: { input_tokens: 3, output_tokens: 2 } } },
      { type: 'user', uuid: 'u2', parentUuid: 'a1', sessionId: 's', message: { role: 'user', content: long } },
      { type: 'assistant', uuid: 'a2', parentUuid: 'u2', sessionId: 's', message: { id: 'm2', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 2, output_tokens: 5, cache_read_input_tokens: 0 } } },
      { type: 'user', uuid: 'u3', parentUuid: 'a2', sessionId: 's', message: { role: 'user', content: 'more' } },
      // The same long transcript with cache figures: a real measurement.
      { type: 'assistant', uuid: 'a3', parentUuid: 'u3', sessionId: 's', message: { id: 'm3', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 2, output_tokens: 5, cache_read_input_tokens: 1500 } } },
    ];
    const id = importText(db, 'placeholder.jsonl', lines.map((l) => JSON.stringify(l)).join('\n')).sessions[0].id;
    const calls = listModelCalls(db, id);
    expect(calls.map((c) => c.placeholder)).toEqual([false, true, false]);
    expect(calls[1]).toMatchObject({ inputTokens: 2, outputTokens: 5, cacheReadTokens: 0 });
    expect(reportedContext(calls[1])).toBeNull();
    expect(reportedContext(calls[2])).toBe(1502);
  });

  it('records a usage figure of the wrong type as null without failing the import (usage is advisory)', () => {
    const msg = (id: string, usage: unknown): string =>
      JSON.stringify({ type: 'assistant', uuid: id, parentUuid: null, sessionId: 's', message: { id, role: 'assistant', content: [{ type: 'text', text: id }], usage } });
    const text = [
      msg('bad-fields', { input_tokens: '12', output_tokens: -1, cache_read_input_tokens: 1.5, cache_creation_input_tokens: 40, cache_creation: 'x' }),
      msg('bad-usage', 'not an object'),
      msg('no-split', { input_tokens: 7, output_tokens: 1, cache_creation_input_tokens: 40 }),
    ].join('\n');
    const id = importText(db, 'bad-usage.jsonl', text).sessions[0].id;
    const calls = listModelCalls(db, id);
    expect(calls).toHaveLength(3);
    // A malformed split falls back to the whole cache-write figure, counted at the 5-minute rate.
    expect(calls[0]).toMatchObject({ messageId: 'bad-fields', inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheWrite5mTokens: 40, cacheWrite1hTokens: null, placeholder: false });
    expect(calls[1]).toMatchObject({ messageId: 'bad-usage', inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheWrite5mTokens: null, cacheWrite1hTokens: null });
    expect(calls[2]).toMatchObject({ inputTokens: 7, cacheWrite5mTokens: 40, cacheWrite1hTokens: null });
    expect(calls.map(reportedContext)).toEqual([null, null, 47]);
  });
});

describe('OpenHands usage', () => {
  it('records the ponyc evaluation record: one call per model response from its token_usages, summing to the accumulated usage', () => {
    const record = JSON.parse(fs.readFileSync(PONYC, 'utf8')) as {
      metrics: { token_usages: unknown[]; accumulated_token_usage: { prompt_tokens: number; completion_tokens: number } };
      history: Array<{ llm_metrics?: unknown }>;
    };
    // The record has llm_metrics on 23 events (running totals; their own token_usages
    // lists are empty) and 23 per-call entries in metrics.token_usages.
    expect(record.history.filter((e) => e.llm_metrics).length).toBe(23);
    expect(record.metrics.token_usages).toHaveLength(23);
    const id = importFiles(db, [PONYC]).sessions[0].id;
    const calls = listModelCalls(db, id);
    expect(calls).toHaveLength(23);
    expect(new Set(calls.map((c) => c.messageId)).size).toBe(23);
    expect(calls[0]).toEqual({
      position: 2,
      turnId: calls[0].turnId,
      messageId: 'gen-1746001974-alxKxkQSJ8j9QsfNTvnX',
      model: 'meta-llama/llama-4-maverick',
      timestamp: '2025-04-30T16:32:57.821635',
      inputTokens: 5920,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: null,
      cacheReadTokens: 0,
      outputTokens: 128,
      placeholder: false,
    });
    expect(calls.at(-1)).toMatchObject({ position: 46, messageId: 'gen-1746002058-f1TMnDIXBxDhhy7ZY4UF', inputTokens: 33459, outputTokens: 227 });
    const sum = (f: (c: (typeof calls)[number]) => number | null): number => calls.reduce((s, c) => s + (f(c) ?? 0), 0);
    expect(sum(reportedContext)).toBe(record.metrics.accumulated_token_usage.prompt_tokens);
    expect(sum((c) => c.outputTokens)).toBe(record.metrics.accumulated_token_usage.completion_tokens);
    expect(sum(reportedContext)).toBe(565158);
  });

  it("reads litellm's usage on basic_gui_mode: prompt_tokens includes cache reads and writes", () => {
    const id = importFiles(db, [GUI]).sessions[0].id;
    const calls = listModelCalls(db, id);
    // 5 assistant turns, 4 of them model responses with usage (the last is a plain message).
    expect(calls).toHaveLength(4);
    expect(calls[0]).toMatchObject({ model: 'claude-3-5-sonnet-20241022', inputTokens: 4, cacheWrite5mTokens: 3435, cacheReadTokens: 0, outputTokens: 104 });
    expect(calls[1]).toMatchObject({ inputTokens: 6, cacheWrite5mTokens: 160, cacheReadTokens: 3435, outputTokens: 1142 });
    expect(calls.map(reportedContext)).toEqual([3439, 3601, 4769, 5488]);
  });
});

describe('OpenAI-style usage', () => {
  it('records nothing for tau-bench (its messages carry no usage)', () => {
    const id = importFiles(db, [TAU]).sessions[0].id;
    expect(listModelCalls(db, id)).toEqual([]);
  });

  it('records an assistant message that carries its usage, with the cached part split off', () => {
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', id: 'chatcmpl-1', model: 'gpt-4o', content: 'hello', usage: { prompt_tokens: 1200, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 1000 } } },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: 'no usage here' },
      { role: 'user', content: 'and' },
      { role: 'assistant', content: 'bad', usage: { prompt_tokens: '1200', completion_tokens: 5 } },
    ];
    for (const [name, text] of [
      ['chat.json', JSON.stringify({ messages })],
      ['chat.jsonl', messages.map((m) => JSON.stringify(m)).join('\n')],
    ]) {
      const id = importText(db, name, text).sessions[0].id;
      const calls = listModelCalls(db, id);
      expect(calls.map((c) => c.position), name).toEqual([1, 5]);
      expect(calls[0]).toMatchObject({ messageId: 'chatcmpl-1', model: 'gpt-4o', inputTokens: 200, cacheReadTokens: 1000, cacheWrite5mTokens: null, outputTokens: 50 });
      expect(reportedContext(calls[0])).toBe(1200);
      expect(calls[1]).toMatchObject({ inputTokens: null, outputTokens: 5 });
    }
  });
});
