/**
 * buildReplay and the message validator on hand-built sessions: each strategy's view,
 * and the normalizer's rules for dangling calls, merging, hoisting and ids.
 */
import { describe, expect, it } from 'vitest';
import { buildReplay, validateMessages, LEADING_GLUE_TEXT, ROLLING_ACKNOWLEDGEMENT, WATERMARK_GLUE } from '../../shared/replay/index.js';
import type { ContentBlock, Role, Turn } from '../../shared/model/turn.js';
import type { SummaryInfo } from '../../shared/contract.js';
import { countTokens } from '../../electron/tokenizer.js';

function turn(position: number, role: Role, blocks: ContentBlock[] | string): Turn {
  const b: ContentBlock[] = typeof blocks === 'string' ? [{ type: 'text', text: blocks }] : blocks;
  return { id: 100 + position, sessionId: 1, position, role, blocks: b, charCount: 0, tokenCount: 0, timestamp: null, model: null, agentId: null, sourceIds: [] };
}
const use = (id: string, name = 'Bash'): ContentBlock => ({ type: 'tool_use', id, name, input: { command: 'ls' } });
const result = (id: string, content = 'ok'): ContentBlock => ({ type: 'tool_result', tool_use_id: id, content, is_error: false });

function summary(id: number, kind: SummaryInfo['kind'], first: number, last: number, text: string, extra: Partial<SummaryInfo> = {}): SummaryInfo {
  const turnIds: number[] = [];
  for (let p = first; p <= last; p++) turnIds.push(100 + p);
  return { id, variantId: 1, runId: 1, kind, depth: 0, text, tokenCount: 10, charCount: text.length, tier: 'normal', model: 'm', promptVersion: '1.0.0', cacheHit: false, compacted: false, firstPosition: first, lastPosition: last, childIds: [], turnIds, createdAt: '', ...extra };
}

// system, then two tool cycles and chat.
const SESSION: Turn[] = [
  turn(0, 'system', 'You are helpful.'),
  turn(1, 'user', 'list files'),
  turn(2, 'assistant', [{ type: 'text', text: 'Listing.' }, use('call_1')]),
  turn(3, 'user', [result('call_1', 'a.txt b.txt')]),
  turn(4, 'assistant', 'There are two files.'),
  turn(5, 'user', 'read a.txt'),
  turn(6, 'assistant', [use('call_2', 'Read')]),
  turn(7, 'tool', [result('call_2', 'hello')]),
  turn(8, 'assistant', 'It says hello.'),
];

const base = { turns: SESSION, summaries: [] as SummaryInfo[], state: {}, params: {}, countTokens: (t: string) => countTokens(t) };

function roles(r: ReturnType<typeof buildReplay>) {
  return r.messages.map((m) => m.role);
}

describe('buildReplay', () => {
  it('shows the original turns when a variant has no summaries yet', () => {
    for (const strategy of ['dag', 'rolling', 'watermark', 'two-line', 'masking', 'window', 'forgetting'] as const) {
      const r = buildReplay({ ...base, strategy });
      expect(r.messages.map((m) => (m.origin.kind === 'turn' ? m.origin.position : -1))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
      expect(roles(r)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
      expect(validateMessages(r.messages, 'openai')).toEqual([]);
      expect(validateMessages(r.messages, 'anthropic')).toEqual([]);
    }
  });

  it('counts tokens per message with the given tokenizer and sums them', () => {
    const r = buildReplay({ ...base, strategy: 'dag' });
    expect(r.messages[0].tokens).toBe(countTokens('You are helpful.'));
    expect(r.totalTokens).toBe(r.messages.reduce((a, m) => a + m.tokens, 0));
  });

  it('dag: system, uncompacted summaries in order, then the uncovered turns', () => {
    const s1 = summary(1, 'leaf', 1, 4, 'files listed', { compacted: true });
    const s2 = summary(2, 'leaf', 5, 6, 'read started', { compacted: true });
    const parent = summary(3, 'condensed', 1, 7, 'all of it', { depth: 1, turnIds: [], childIds: [1, 2] });
    const r = buildReplay({ ...base, strategy: 'dag', summaries: [s1, s2, parent] });
    // parent covers turns 1-6 through its children; turn 7 is a tool result whose call (6) is covered.
    expect(r.messages.map((m) => m.origin)).toEqual([
      { kind: 'turn', turnId: 100, position: 0 },
      { kind: 'summary', summaryId: 3 },
      { kind: 'turn', turnId: 108, position: 8 },
    ]);
    expect(r.messages[1].parts).toEqual([{ kind: 'summary', summaryId: 3 }, { kind: 'turn', turnId: 107, position: 7 }]);
    expect(r.messages[1].blocks[0]).toEqual({ type: 'text', text: '[Summary of turns 1-7, depth 1]\nall of it' });
    // The dangling result became text, keeping its content.
    expect(r.messages[1].blocks[1]).toEqual({ type: 'text', text: '[tool result for call_2, its call is no longer in context]\nhello' });
    expect(validateMessages(r.messages, 'anthropic')).toEqual([]);
  });

  it('rolling: summary user turn and acknowledgement, then the turns from the pointer (counting non-system turns)', () => {
    const s = summary(7, 'rolling', 1, 4, 'we listed files');
    const r = buildReplay({ ...base, strategy: 'rolling', summaries: [s], state: { pointer: 4, rollingSummaryId: 7 } });
    expect(r.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(r.messages[1]).toMatchObject({ origin: { kind: 'summary', summaryId: 7 }, blocks: [{ type: 'text', text: '[Summary of previous conversation]\nwe listed files' }] });
    expect(r.messages[2]).toMatchObject({ origin: { kind: 'synthetic' }, blocks: [{ type: 'text', text: ROLLING_ACKNOWLEDGEMENT }] });
    expect(r.messages[3].origin).toEqual({ kind: 'turn', turnId: 105, position: 5 });
  });

  it('watermark: one COMPACTION_SUMMARY user turn, an assistant turn before a kept user turn', () => {
    const s = summary(9, 'watermark', 1, 4, 'files: a.txt b.txt', { model: 'gpt-x' });
    const r = buildReplay({ ...base, strategy: 'watermark', summaries: [s], state: { watermark: 5, watermarkSummaryId: 9 } });
    expect(roles(r)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    // The tag carries the watermark its pass left (where its span ends).
    expect(r.messages[1].blocks).toEqual([{ type: 'text', text: '<COMPACTION_SUMMARY model=gpt-x watermark=5>\nfiles: a.txt b.txt\n</COMPACTION_SUMMARY>' }]);
    expect(r.messages[2].blocks).toEqual([{ type: 'text', text: WATERMARK_GLUE }]);
    expect(r.messages[3].origin).toEqual({ kind: 'turn', turnId: 105, position: 5 });
  });

  it('watermark (design version 1): one summary per pass, in order, each tagged with the watermark it left', () => {
    const first = summary(9, 'watermark', 1, 2, 'first pass', { model: 'gpt-x' });
    const second = summary(10, 'watermark', 3, 4, 'second pass', { model: 'gpt-x' });
    const r = buildReplay({ ...base, strategy: 'watermark', summaries: [second, first], state: { watermark: 5, watermarkSummaryId: 10 } });
    expect(r.messages[1].origin).toEqual({ kind: 'summary', summaryId: 9 });
    const texts = (r.messages[1].parts ?? [r.messages[1].origin]).length;
    expect(texts).toBe(2);
    expect(r.messages[1].blocks).toEqual([
      { type: 'text', text: '<COMPACTION_SUMMARY model=gpt-x watermark=3>\nfirst pass\n</COMPACTION_SUMMARY>' },
      { type: 'text', text: '<COMPACTION_SUMMARY model=gpt-x watermark=5>\nsecond pass\n</COMPACTION_SUMMARY>' },
    ]);
    expect(r.messages[3].origin).toEqual({ kind: 'turn', turnId: 105, position: 5 });
  });

  it('watermark: no glue when the first kept turn is the assistant', () => {
    const s = summary(9, 'watermark', 1, 3, 'listed', { model: 'gpt-x' });
    const r = buildReplay({ ...base, strategy: 'watermark', summaries: [s], state: { watermark: 4, watermarkSummaryId: 9 } });
    expect(roles(r)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(r.messages[2].origin).toEqual({ kind: 'turn', turnId: 104, position: 4 });
  });

  it('two-line: digests and chunks replace their turns; compacted digests do not show', () => {
    const digest = summary(4, 'digest', 1, 4, 'digest text', { compacted: true, tier: 'digest' });
    const c1 = summary(5, 'chunk', 1, 2, 'chunk one');
    const c2 = summary(6, 'chunk', 3, 4, 'chunk two');
    const r = buildReplay({ ...base, strategy: 'two-line', summaries: [digest, c1, c2], state: { coveredUntil: 5 } });
    expect(r.messages[1].blocks).toEqual([
      { type: 'text', text: '[Summary of turns 1-2]\nchunk one' },
      { type: 'text', text: '[Summary of turns 3-4]\nchunk two' },
      { type: 'text', text: 'read a.txt' },
    ]);
    expect(r.messages[1].parts?.length).toBe(3);
  });

  it('masking: after a pass, tool results older than the last maskWindow cycles become placeholders', () => {
    const before = buildReplay({ ...base, strategy: 'masking', params: { maskWindow: 1 } });
    expect(before.messages[3].blocks).toEqual([result('call_1', 'a.txt b.txt')]);
    const r = buildReplay({ ...base, strategy: 'masking', params: { maskWindow: 1 }, state: { maskBoundary: 3 } });
    expect(r.messages[3].blocks).toEqual([{ type: 'tool_result', tool_use_id: 'call_1', content: '[tool result masked: Bash output, 11 chars removed]', is_error: false }]);
    expect(r.messages[7].blocks).toEqual([result('call_2', 'hello')]);
  });

  it('window/forgetting: conversation turns in droppedRanges are omitted, system turns stay', () => {
    const r = buildReplay({ ...base, strategy: 'window', state: { droppedRanges: [[0, 4]] } });
    expect(r.messages.map((m) => (m.origin.kind === 'turn' ? m.origin.position : -1))).toEqual([0, 5, 6, 7, 8]);
  });
});

describe('normalization', () => {
  it('hoists a mid-session system turn to the front', () => {
    const turns = [turn(0, 'user', 'hi'), turn(1, 'system', 'be brief'), turn(2, 'assistant', 'hello')];
    const r = buildReplay({ ...base, turns, strategy: 'dag' });
    expect(roles(r)).toEqual(['system', 'user', 'assistant']);
    expect(validateMessages(r.messages, 'anthropic')).toEqual([]);
  });

  it('puts a user message before a conversation that starts with the assistant', () => {
    const turns = [turn(0, 'assistant', 'hello')];
    const r = buildReplay({ ...base, turns, strategy: 'dag' });
    expect(r.messages[0]).toMatchObject({ role: 'user', origin: { kind: 'synthetic' }, blocks: [{ type: 'text', text: LEADING_GLUE_TEXT }] });
  });

  it('merges a tool_use, interleaved assistant text and the later result into one valid cycle', () => {
    const turns = [turn(0, 'user', 'go'), turn(1, 'assistant', [use('toolu_1')]), turn(2, 'assistant', 'working'), turn(3, 'user', [{ type: 'text', text: 'note' }, result('toolu_1')])];
    const r = buildReplay({ ...base, turns, strategy: 'dag' });
    expect(roles(r)).toEqual(['user', 'assistant', 'user']);
    expect(r.messages[2].blocks.map((b) => b.type)).toEqual(['tool_result', 'text']);
    expect(validateMessages(r.messages, 'openai')).toEqual([]);
    expect(validateMessages(r.messages, 'anthropic')).toEqual([]);
  });

  it('converts an unanswered tool_use to text and renames a reused id', () => {
    const turns = [
      turn(0, 'user', 'go'),
      turn(1, 'assistant', [use('call_a')]),
      turn(2, 'tool', [result('call_a', 'first')]),
      turn(3, 'assistant', [use('call_a')]),
      turn(4, 'tool', [result('call_a', 'second')]),
      turn(5, 'assistant', [use('call.b')]),
    ];
    const r = buildReplay({ ...base, turns, strategy: 'dag' });
    expect(r.messages[3].blocks[0]).toMatchObject({ type: 'tool_use', id: 'call_a_2' });
    expect(r.messages[4].blocks[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_a_2', content: 'second' });
    expect(r.messages[5].blocks[0]).toEqual({ type: 'text', text: '[tool call Bash (call.b), no result follows it in context]\n{"command":"ls"}' });
    expect(validateMessages(r.messages, 'anthropic')).toEqual([]);
  });

  it('drops whitespace-only text and turns a thinking-only assistant message into text', () => {
    const turns = [turn(0, 'user', 'q'), turn(1, 'assistant', [{ type: 'thinking', thinking: 'hmm' }]), turn(2, 'user', '  '), turn(3, 'assistant', 'a')];
    const r = buildReplay({ ...base, turns, strategy: 'dag' });
    expect(roles(r)).toEqual(['user', 'assistant']);
    expect(r.messages[1].blocks).toEqual([{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'a' }]);
    const only = buildReplay({ ...base, turns: turns.slice(0, 2), strategy: 'dag' });
    expect(only.messages[1].blocks).toEqual([{ type: 'text', text: '[thinking]\nhmm' }]);
  });
});

describe('validateMessages', () => {
  const m = (role: 'system' | 'user' | 'assistant' | 'tool', blocks: ContentBlock[]) => ({ role, blocks });
  it('reports a tool_use separated from its tool_result', () => {
    const msgs = [m('user', [{ type: 'text', text: 'go' }]), m('assistant', [use('x')]), m('user', [{ type: 'text', text: 'wait' }]), m('assistant', [{ type: 'text', text: 'ok' }]), m('tool', [result('x')])];
    expect(validateMessages(msgs, 'openai').map((p) => p.code)).toEqual(['unanswered_tool_use', 'dangling_tool_result']);
  });
  it('reports Anthropic alternation, first-message and id rules that OpenAI does not have', () => {
    const msgs = [m('system', [{ type: 'text', text: 's' }]), m('assistant', [{ type: 'text', text: 'a' }]), m('assistant', [use('a.b')]), m('tool', [result('a.b')]), m('system', [{ type: 'text', text: 's2' }])];
    expect(validateMessages(msgs, 'openai').map((p) => p.code)).toEqual([]);
    expect(validateMessages(msgs, 'anthropic').map((p) => p.code)).toEqual(['first_not_user', 'not_alternating', 'tool_use_id_pattern', 'system_not_leading']);
  });
  it('reports results after other content, empty text and reasoning-only assistant messages', () => {
    const msgs = [m('user', [{ type: 'text', text: ' ' }]), m('assistant', [use('x')]), m('user', [{ type: 'text', text: 'hi' }, result('x')]), m('assistant', [{ type: 'thinking', thinking: 't' }])];
    expect(validateMessages(msgs, 'openai').map((p) => p.code)).toEqual(['empty_text', 'tool_result_not_first', 'empty_assistant']);
  });
});
