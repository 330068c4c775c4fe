/**
 * The export formats on a hand-built variant (a watermark summary, a tool cycle with an
 * error, thinking, an image, a system prompt): exact output of each format, and the
 * openai export read back by the project's own openai importer.
 */
import { describe, expect, it } from 'vitest';
import { buildReplay } from '../../shared/replay/index.js';
import { exportVariant, slug, toDag, type AnthropicRequest } from '../../shared/export/index.js';
import type { ContentBlock, Role, Turn } from '../../shared/model/turn.js';
import type { SummaryInfo } from '../../shared/contract.js';
import { countTokens } from '../../electron/tokenizer.js';
import { importText } from '../../electron/importers/import.js';
import { listTurns } from '../../electron/store/turns.js';
import { tempDb } from '../helpers/temp-db.js';

function turn(position: number, role: Role, blocks: ContentBlock[]): Turn {
  return { id: 500 + position, sessionId: 9, position, role, blocks, charCount: 0, tokenCount: 0, timestamp: null, model: null, agentId: null, sourceIds: [] };
}
const TURNS: Turn[] = [
  turn(0, 'system', [{ type: 'text', text: 'You fix bugs.' }]),
  turn(1, 'user', [{ type: 'text', text: 'The build fails.' }]),
  turn(2, 'assistant', [{ type: 'text', text: 'Looking.' }]),
  turn(3, 'user', [{ type: 'text', text: 'Please hurry.' }, { type: 'image', mediaType: 'image/png', sizeBytes: 2048 }]),
  turn(4, 'assistant', [{ type: 'thinking', thinking: 'run make' }, { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'make' } }]),
  turn(5, 'user', [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'error: missing ```;```', is_error: true }]),
  turn(6, 'assistant', [{ type: 'text', text: 'A semicolon is missing.' }]),
];
const SUMMARY: SummaryInfo = {
  id: 42, variantId: 7, runId: 1, kind: 'watermark', depth: 0, text: 'User reported a failing build.', tokenCount: 6, charCount: 30, tier: 'normal', model: 'gpt-4o-mini',
  promptVersion: '1.0.0', cacheHit: true, compacted: false, firstPosition: 1, lastPosition: 2, childIds: [], turnIds: [501, 502], createdAt: '2026-01-01T00:00:00.000Z',
};
const OLD: SummaryInfo = { ...SUMMARY, id: 41, text: 'older', compacted: true, cacheHit: false, lastPosition: 1, turnIds: [501] };

const replay = buildReplay({ strategy: 'watermark', turns: TURNS, summaries: [OLD, SUMMARY], state: { watermark: 3, watermarkSummaryId: 42 }, params: {}, countTokens: (t) => countTokens(t) });
const INPUT = { session: { id: 9, title: 'Fix the build: session #9' }, replay: { variantId: 7, ...replay }, summaries: [OLD, SUMMARY], variant: { id: 7, strategy: 'watermark' as const, params: {} } };
const SUMMARY_TEXT = '<COMPACTION_SUMMARY model=gpt-4o-mini watermark=3>\nUser reported a failing build.\n</COMPACTION_SUMMARY>';

describe('exportVariant', () => {
  it('openai: messages with tool_calls (JSON string arguments), role tool results, no thinking', () => {
    const file = exportVariant('openai', INPUT);
    expect(file.fileName).toBe('fix-the-build-session-9-watermark-v7.openai.json');
    expect(file.mimeType).toBe('application/json');
    expect(JSON.parse(file.content)).toEqual({
      messages: [
        { role: 'system', content: 'You fix bugs.' },
        { role: 'user', content: SUMMARY_TEXT },
        { role: 'assistant', content: 'Understood. I will continue from the compaction summary above.' },
        { role: 'user', content: 'Please hurry.\n\n[image: image/png, 2048 bytes]' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'Bash', arguments: '{"command":"make"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_01', content: '[error] error: missing ```;```' },
        { role: 'assistant', content: 'A semicolon is missing.' },
      ],
    });
  });

  it('anthropic: {system, messages} with content blocks', () => {
    const file = exportVariant('anthropic', INPUT);
    expect(file.fileName).toBe('fix-the-build-session-9-watermark-v7.anthropic.json');
    const body = JSON.parse(file.content) as AnthropicRequest;
    expect(body).toEqual({
      system: 'You fix bugs.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: SUMMARY_TEXT }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Understood. I will continue from the compaction summary above.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Please hurry.' }, { type: 'text', text: '[image: image/png, 2048 bytes]' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'make' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'error: missing ```;```', is_error: true }] },
        { role: 'assistant', content: [{ type: 'text', text: 'A semicolon is missing.' }] },
      ],
    });
  });

  it('jsonl: one replay message per line with its origin and tokens', () => {
    const file = exportVariant('jsonl', INPUT);
    expect(file.fileName).toBe('fix-the-build-session-9-watermark-v7.jsonl');
    const lines = file.content.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(replay.messages.length);
    expect(lines.map((l) => [l.role, l.origin])).toEqual([
      ['system', { kind: 'turn', turnId: 500, position: 0 }],
      ['user', { kind: 'summary', summaryId: 42 }],
      ['assistant', { kind: 'synthetic' }],
      ['user', { kind: 'turn', turnId: 503, position: 3 }],
      ['assistant', { kind: 'turn', turnId: 504, position: 4 }],
      ['tool', { kind: 'turn', turnId: 505, position: 5 }],
      ['assistant', { kind: 'turn', turnId: 506, position: 6 }],
    ]);
    expect(lines[4].blocks[0]).toEqual({ type: 'thinking', thinking: 'run make' });
    expect(lines[1].tokens).toBe(countTokens(SUMMARY_TEXT));
  });

  it('markdown: readable, with the summary visibly marked and the superseded one listed', () => {
    const md = exportVariant('markdown', INPUT);
    expect(md.fileName).toBe('fix-the-build-session-9-watermark-v7.md');
    expect(md.mimeType).toBe('text/markdown');
    const text = md.content;
    expect(text.startsWith(`# Fix the build: session #9\n\nVariant 7 · strategy watermark · 7 messages · ${replay.totalTokens} tokens\n`)).toBe(true);
    expect(text).toContain(`### 2. user · summary s42 · ${replay.messages[1].tokens} tokens\n\n**Summary** s42 · watermark · depth 0 · tier normal · model gpt-4o-mini · turns 1–2 · 6 tokens · cache hit\n\n> <COMPACTION_SUMMARY model=gpt-4o-mini watermark=3>\n> User reported a failing build.\n> </COMPACTION_SUMMARY>`);
    expect(text).toContain('**Tool call** `Bash` (`toolu_01`)\n\n```json\n{\n  "command": "make"\n}\n```');
    // The result holds ``` itself: the fence is longer.
    expect(text).toContain('**Tool error** for `toolu_01`\n\n````\nerror: missing ```;```\n````');
    expect(text).toContain('> *thinking:* run make');
    expect(text).toContain('## Summaries not in the context');
    expect(text).toContain('- **Summary** s41 · watermark · depth 0 · tier normal · model gpt-4o-mini · turns 1–1 · 6 tokens · compacted');
  });

  it('dag: summaries and the turns they cover as nodes, child and covers edges', () => {
    const parent: SummaryInfo = { ...SUMMARY, id: 43, depth: 1, childIds: [42], turnIds: [], firstPosition: 1, lastPosition: 2 };
    const dag = toDag({ ...INPUT, summaries: [SUMMARY, parent] });
    expect(dag.edges).toEqual([
      { source: 's42', target: 't501', kind: 'covers' },
      { source: 's42', target: 't502', kind: 'covers' },
      { source: 's43', target: 's42', kind: 'child' },
    ]);
    expect(dag.nodes.map((n) => (n.type === 'turn' ? [n.id, n.position, n.inContext] : [n.id, n.depth, n.inContext]))).toEqual([
      ['s42', 0, true],
      ['s43', 1, false],
      ['t501', 1, false],
      ['t502', 2, false],
    ]);
    const file = exportVariant('dag', INPUT);
    expect(file.fileName).toBe('fix-the-build-session-9-watermark-v7.dag.json');
    expect(JSON.parse(file.content).variantId).toBe(7);
  });

  it('slugs file names safely', () => {
    expect(slug('  Ünïcode / ../../etc  ')).toBe('unicode-etc');
    expect(slug('***')).toBe('session');
  });

  it('the openai export imports back as the same conversation', () => {
    const t = tempDb();
    try {
      const report = importText(t.db, 'back.json', exportVariant('openai', INPUT).content, { format: 'openai' });
      const turns = listTurns(t.db, report.sessions[0].id);
      expect(turns.map((x) => x.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
      expect(turns[4].blocks).toEqual([{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'make' } }]);
      expect(turns[5].blocks[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_01' });
    } finally {
      t.cleanup();
    }
  });
});
