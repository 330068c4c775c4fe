/**
 * The extractive summarizer (shared/summarize/extractive.ts), rebuilt on facts:
 * sections true to their names, budgeted by salience, condensation by facts, chained
 * priors; deterministic, bounded, never empty and never the source verbatim. On a small
 * hand-made session and on the real fixtures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetTokens, createExtractiveSummarizer, extractiveSummarize, extractiveSummary, EXTRACTIVE_PROMPT_VERSION, MAX_BUDGET_TOKENS } from '../../shared/summarize/extractive.js';
import { SUMMARY_SECTIONS } from '../../shared/summarize/sections.js';
import { summaryFacts } from '../../shared/summarize/summary-facts.js';
import { itemsToSourceText, summaryToItem, turnsToItems } from '../../shared/summarize/items.js';
import { extractFacts, ledgerOf, type FactSet } from '../../shared/facts/index.js';
import { NARRATION_RE } from '../../shared/facts/decisions.js';
import type { ContentBlock, Role, Turn } from '../../shared/model/turn.js';
import { listExternalCompactions, listTurns } from '../../electron/store/turns.js';
import { countTokens } from '../../electron/tokenizer.js';
import { runCompaction } from '../../electron/engine/engine.js';
import { listSummaries } from '../../electron/store/variants.js';
import { getOwnFacts } from '../../electron/store/summary-facts.js';
import { fixtureDb, sessionBySource, type FixtureDb } from '../helpers/fixture-sessions.js';

const filler = Array.from({ length: 300 }, () => 'the quick brown fox jumps over the lazy dog').join(' ');
const turn = (role: Role, ...blocks: ContentBlock[]) => ({ role, blocks });
const text = (t: string): ContentBlock => ({ type: 'text', text: t });

const SESSION = [
  turn('user', text('Please fix the failing test in src/store/db.ts. It crashes when the file is missing.')),
  turn('assistant', { type: 'thinking', thinking: 'I should run the tests first.' }, text("Let me run the test suite first. We decided to keep better-sqlite3 12.11.1 instead of 13.0.0 because 13 needs Node 22."), { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npx vitest run test/node/db.test.ts' } }),
  turn('user', { type: 'tool_result', tool_use_id: 't1', content: "FAIL test/node/db.test.ts > opens a database\nTypeError: Cannot read properties of undefined (reading 'prepare')\n    at openDatabase (electron/store/db.ts:42:7)\nTests: 1 failed, 11 passed", is_error: true }),
  turn('assistant', { type: 'tool_use', id: 't2', name: 'Read', input: { file_path: '/repo/electron/store/db.ts' } }),
  turn('user', { type: 'tool_result', tool_use_id: 't2', content: filler, is_error: false }),
  turn('assistant', text('Perfect! The root cause is that openDatabase returns before migrate() runs. See https://github.com/WiseLibs/better-sqlite3/issues/1234 for the readonly option.')),
  turn('user', text('Great, next we need to update README.md with the new CLI flags --db and --json.')),
];

/** The lines of one section (without its title), or [] when the summary has none. */
function sectionLines(summary: string, section: string): string[] {
  const lines = summary.split('\n');
  const at = lines.indexOf(`${section}:`);
  if (at < 0) return [];
  const out: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith('- ')) break;
    out.push(l.slice(2));
  }
  return out;
}

describe('extractive summarizer: sections and budget', () => {
  it('writes the sections in order, each holding what its name says', () => {
    const summary = extractiveSummary({ purpose: 'leaf', items: turnsToItems(SESSION), targetTokens: 1000, tier: 'normal' });
    expect(summary).toBe(
      [
        '[leaf summary of 7 items]',
        'Goal and requests:',
        '- Please fix the failing test in src/store/db.ts. It crashes when the file is missing.',
        '- Great, next we need to update README.md with the new CLI flags --db and --json.',
        'State now:',
        // No todo list: the last request is the open one, named rather than repeated.
        '- open request: the last one above',
        // Two files named db.ts: the project's src/store/db.ts and the one read under /repo.
        'Files:',
        '- src/store/db.ts',
        '- test/node/db.test.ts',
        '- /repo/electron/store/db.ts (read)',
        '- README.md',
        'Commands and results:',
        '- npx vitest run test/node/db.test.ts → failed',
        'Errors:',
        // The line that says what went wrong, not the runner's FAIL header.
        "- TypeError: Cannot read properties of undefined (reading 'prepare') → not fixed",
        'Decisions:',
        // "Let me run…" is narration; the sentence with the choice and its reason is kept.
        '- We decided to keep better-sqlite3 12.11.1 instead of 13.0.0 because 13 needs Node 22.',
        'Key identifiers and figures:',
        // What was said (not tool output), in time order; "13 needs Node 22" has no unit: no figure.
        '- names: https://github.com/WiseLibs/better-sqlite3/issues/1234; openDatabase; migrate()',
      ].join('\n'),
    );
  });

  it('returns the facts it shows beside its text, and they read back from the text', () => {
    const { text: t, facts } = extractiveSummarize({ purpose: 'leaf', items: turnsToItems(SESSION), targetTokens: 1000, tier: 'normal' });
    const l = ledgerOf(facts, t);
    // Every fact the summary says it carries survives in its text.
    expect(l.lost.map((f) => f.text)).toEqual([]);
    const back = summaryFacts(t);
    for (const c of ['path', 'command', 'identifier'] as const) {
      expect(back.facts.filter((f) => f.category === c).map((f) => f.text).sort()).toEqual(facts.facts.filter((f) => f.category === c).map((f) => f.text).sort());
    }
    expect(back.decisions!.map((d) => d.text)).toEqual(facts.decisions!.map((d) => d.text));
  });

  it('is deterministic: the same request gives the same text', () => {
    const req = { purpose: 'leaf' as const, items: turnsToItems(SESSION), targetTokens: 300, tier: 'normal' as const };
    expect(extractiveSummary(req)).toBe(extractiveSummary({ ...req, items: turnsToItems(SESSION) }));
  });

  it('is bounded whatever the target, and is never empty or the source verbatim', () => {
    expect(budgetTokens(1_000_000, 'normal')).toBe(MAX_BUDGET_TOKENS);
    expect(budgetTokens(120, 'aggressive')).toBe(60);
    for (const items of [turnsToItems([turn('user', text('ok'))]), turnsToItems([turn('assistant')]), []]) {
      const s = extractiveSummary({ purpose: 'leaf', items, targetTokens: 10, tier: 'normal' });
      expect(s.trim().length).toBeGreaterThan(0);
      expect(s).not.toBe(itemsToSourceText(items));
    }
  });

  it('a rolling summary carries the previous summary forward', () => {
    const prior = extractiveSummary({ purpose: 'leaf', items: turnsToItems(SESSION.slice(0, 3)), targetTokens: 400, tier: 'normal' });
    // The new span holds a large file read: room enough for the prior's facts and the new ones.
    const rolling = extractiveSummary({ purpose: 'rolling', items: turnsToItems(SESSION.slice(3)), priorSummary: prior, targetTokens: 400, tier: 'normal' });
    expect(sectionLines(prior, 'Goal and requests')).toEqual(['Please fix the failing test in src/store/db.ts. It crashes when the file is missing.']);
    expect(sectionLines(rolling, 'Goal and requests')).toEqual(['Please fix the failing test in src/store/db.ts. It crashes when the file is missing.', 'Great, next we need to update README.md with the new CLI flags --db and --json.']);
    expect(sectionLines(rolling, 'State now')).toEqual(['open request: the last one above']);
  });

  it('implements the Summarizer interface with kind and model "extractive" and returns its facts', async () => {
    const s = createExtractiveSummarizer();
    expect([s.kind, s.model, s.promptVersion]).toEqual(['extractive', 'extractive', EXTRACTIVE_PROMPT_VERSION]);
    expect(EXTRACTIVE_PROMPT_VERSION).toBe('extractive-2');
    const r = await s.summarize({ purpose: 'leaf', items: turnsToItems(SESSION), targetTokens: 1000, tier: 'normal' });
    expect(r.text).toBe(extractiveSummary({ purpose: 'leaf', items: turnsToItems(SESSION), targetTokens: 1000, tier: 'normal' }));
    expect(r.facts!.facts.length).toBeGreaterThan(0);
  });
});

describe('extractive summarizer on the real fixtures', () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());

  /** Every fixture session cut into spans of `size` turns (the last one shorter). */
  function spans(size: number): Array<{ source: string; turns: Turn[] }> {
    const out: Array<{ source: string; turns: Turn[] }> = [];
    for (const s of f.sessions) {
      const all = listTurns(f.db, s.id);
      for (let i = 0; i < all.length; i += size) out.push({ source: s.sourceFile, turns: all.slice(i, i + size) });
    }
    return out;
  }

  it('no narration in Decisions, no markup, escapes or timestamps among files and figures, sections only from the list and in order', () => {
    let decisions = 0;
    for (const { source, turns } of spans(60)) {
      const s = extractiveSummary({ purpose: 'leaf', items: turnsToItems(turns), targetTokens: 1200, tier: 'normal' });
      const titles = s.split('\n').filter((l) => !l.startsWith('- ') && !l.startsWith('['));
      expect(titles.every((t) => (SUMMARY_SECTIONS as readonly string[]).includes(t.slice(0, -1))), source).toBe(true);
      const order = titles.map((t) => SUMMARY_SECTIONS.indexOf(t.slice(0, -1) as (typeof SUMMARY_SECTIONS)[number]));
      expect(order, source).toEqual([...order].sort((a, b) => a - b));
      for (const d of sectionLines(s, 'Decisions')) {
        decisions++;
        expect(d, source).not.toMatch(NARRATION_RE);
        expect(d, source).not.toMatch(/^(?:Let me|Good|Perfect|Now I'll|Great)\b/);
      }
      for (const line of [...sectionLines(s, 'Files'), ...sectionLines(s, 'Key identifiers and figures')]) {
        expect(line, source).not.toMatch(/<\/?[a-z][\w-]*>|(?:^|[\s;])\/(?:span|div|p|br)\b|\\n|\\t|\d{4}-\d{2}-\d{2}T\d{2}|\b(?:req|msg|toolu)_\w{6,}/);
      }
      expect(s, source).not.toMatch(/\\n|\\"|<\/?(?:span|div|system-reminder|command-name)\b/);
    }
    // The fixtures state some decisions with their reasons (counted by this walk, not pinned: a sanity floor).
    expect(decisions).toBeGreaterThan(5);
  });

  it('never goes over its target (real o200k tokens), and a tiny span gives a tiny summary', () => {
    for (const { source, turns } of spans(40).slice(0, 40)) {
      const items = turnsToItems(turns);
      for (const target of [60, 300, 1200]) {
        // With the real tokenizer (as the app runs it): never over, by o200k's count. Only the
        // header is written whatever the target (a summary is never empty).
        const exact = extractiveSummary({ purpose: 'leaf', items, targetTokens: target, tier: 'normal' }, (t) => countTokens(t));
        expect(countTokens(exact), `${source} @${target}`).toBeLessThanOrEqual(Math.max(target, countTokens('[leaf summary of 40 items]')));
        // Estimated (no tokenizer in shared/): the estimate errs high, so it holds here too.
        const estimated = extractiveSummary({ purpose: 'leaf', items, targetTokens: target, tier: 'normal' });
        expect(countTokens(estimated), `${source} @${target} estimated`).toBeLessThanOrEqual(Math.max(target, countTokens('[leaf summary of 40 items]')));
      }
    }
    // Tiny spans: the first two turns of each session, at a large target: never longer than the span.
    for (const s of f.sessions) {
      const turns = listTurns(f.db, s.id, { from: 0, to: 2 });
      if (turns.length === 0) continue;
      const items = turnsToItems(turns);
      const summary = extractiveSummary({ purpose: 'leaf', items, targetTokens: 1200, tier: 'normal' });
      expect(countTokens(summary), s.sourceFile).toBeLessThanOrEqual(Math.max(countTokens(itemsToSourceText(items)), countTokens('[leaf summary of 2 items]')));
    }
  });

  it('State now is the last TodoWrite before the cut: its done items as done, no finished step among the open ones', () => {
    const s = sessionBySource(f, 'JSSoundRecorder');
    const all = listTurns(f.db, s.id);
    const todoWrites = all.filter((t) => t.blocks.some((b) => b.type === 'tool_use' && b.name === 'TodoWrite'));
    // The session has 15 TodoWrite lines in its file (grep), grouped into fewer turns; cut between the 6th and 7th.
    expect(todoWrites.length).toBeGreaterThan(6);
    const cut = Math.floor((todoWrites[5].position + todoWrites[6].position) / 2);
    const turns = all.slice(0, cut);
    const last = turns.filter((t) => t.blocks.some((b) => b.type === 'tool_use' && b.name === 'TodoWrite')).at(-1)!;
    const block = last.blocks.filter((b) => b.type === 'tool_use' && b.name === 'TodoWrite').at(-1)!;
    const todos = (block.type === 'tool_use' ? (block.input as { todos: unknown }).todos : []) as Array<{ content: string; status: string }>;
    const summary = extractiveSummary({ purpose: 'leaf', items: turnsToItems(turns), targetTokens: 4000, tier: 'normal' });
    const state = sectionLines(summary, 'State now');
    const expected = todos.map((t) => `${t.status === 'completed' ? 'done' : t.status === 'in_progress' ? 'in progress' : 'open'}: ${t.content.replace(/\s+/g, ' ').trim()}`);
    // Every todo of that list, with its status as of the cut, in the list's order...
    expect(state.filter((l) => !l.startsWith('open request: '))).toEqual(expected);
    // ...and no completed step reads as open or in progress.
    const done = new Set(todos.filter((t) => t.status === 'completed').map((t) => t.content.trim()));
    for (const l of state) if (!l.startsWith('done: ')) expect(done.has(l.replace(/^(?:open|in progress|open request): /, ''))).toBe(false);
  });

  /** The spotter span Claude Code compacted, as dag leaves (≤ 20,000 tokens each, chained priors). */
  function spotterLeaves(): { turns: Turn[]; span: FactSet; leaves: Array<{ text: string; facts: FactSet }>; cc: string } {
    const s = sessionBySource(f, 'spotter__258c7280');
    const [cc] = listExternalCompactions(f.db, s.id);
    const turns = listTurns(f.db, s.id, { from: cc.firstPosition, to: cc.lastPosition + 1 });
    const leaves: Array<{ text: string; facts: FactSet }> = [];
    let prior: string | null = null;
    for (let i = 0, tokens = 0, chunk: Turn[] = []; i <= turns.length; i++) {
      if (i === turns.length || (chunk.length > 0 && tokens + turns[i].tokenCount > 20_000)) {
        const leaf = extractiveSummarize({ purpose: 'leaf', items: turnsToItems(chunk), priorSummary: prior, targetTokens: 1200, tier: 'normal' });
        leaves.push(leaf);
        prior = leaf.text;
        chunk = [];
        tokens = 0;
      }
      if (i < turns.length) {
        chunk.push(turns[i]);
        tokens += turns[i].tokenCount;
      }
    }
    return { turns, span: extractFacts(turnsToItems(turns)), leaves, cc: cc.summaryText! };
  }

  it('chains priors: every later leaf carries the goal only the first chunk states', () => {
    const { leaves, turns } = spotterLeaves();
    // 207 turns, 109,506 tokens by the stored counts: 7 chunks of at most 20,000.
    expect(leaves.length).toBe(7);
    expect(sectionLines(leaves[0].text, 'Goal and requests')).toEqual(['Implement spotter-gqc']);
    for (const leaf of leaves.slice(1)) expect(sectionLines(leaf.text, 'Goal and requests')).toContain('Implement spotter-gqc');
    // Without its prior, a later leaf has no request at all (the chunk holds none).
    const alone = extractiveSummary({ purpose: 'leaf', items: turnsToItems(turns.slice(100, 140)), targetTokens: 1200, tier: 'normal' });
    expect(sectionLines(alone, 'Goal and requests')).toEqual([]);
  });

  it("condensation merges facts: at its children's budget it keeps all they kept; at Claude Code's size it keeps 2× its share", () => {
    const { span, leaves, cc } = spotterLeaves();
    const union = ledgerOf(span, leaves.map((l) => l.text).join('\n')).retention;
    const childrenTokens = leaves.reduce((n, l) => n + countTokens(l.text), 0);
    // Same budget as the children together: nothing is forced out, so every category keeps at
    // least what the union of the children kept (merged facts are deduplicated, never dropped).
    const full = extractiveSummarize({ purpose: 'condensed', items: leaves.map((l) => summaryToItem(l.text, undefined, l.facts)), targetTokens: childrenTokens, tier: 'normal' });
    const fullRetention = ledgerOf(span, full.text).retention;
    for (const c of ['path', 'command', 'identifier', 'number', 'error', 'request'] as const) expect(fullRetention[c].kept, c).toBeGreaterThanOrEqual(union[c].kept);
    // The children's facts come back from their text too (stored facts absent): the same keeps.
    const reread = extractiveSummarize({ purpose: 'condensed', items: leaves.map((l) => summaryToItem(l.text)), targetTokens: childrenTokens, tier: 'normal' });
    for (const c of ['path', 'command', 'identifier'] as const) expect(ledgerOf(span, reread.text).retention[c].kept, c).toBeGreaterThanOrEqual(union[c].kept);
    // At Claude Code's own size the budget may force facts out; what is asserted is the bar:
    // no more tokens than its summary and at least 2× its share per category (or everything).
    const ccTokens = countTokens(cc);
    const small = extractiveSummarize({ purpose: 'condensed', items: leaves.map((l) => summaryToItem(l.text, undefined, l.facts)), targetTokens: ccTokens, tier: 'normal' }, (t) => countTokens(t));
    expect(countTokens(small.text)).toBeLessThanOrEqual(ccTokens);
    const mine = ledgerOf(span, small.text).retention;
    const theirs = ledgerOf(span, cc).retention;
    for (const c of ['path', 'command', 'identifier', 'number'] as const) {
      expect(mine[c].kept / mine[c].total, c).toBeGreaterThanOrEqual(Math.min(1, (2 * theirs[c].kept) / theirs[c].total));
    }
  });

  it('a dag pass stores each summary with its facts and chains its leaves', async () => {
    const s = sessionBySource(f, 'spotter__258c7280');
    const r = await runCompaction(f.db, { sessionId: s.id, strategy: 'dag', params: { leafChunkTokens: 20_000, condensedMinFanout: 4 }, force: true });
    expect(r.status).toBe('completed');
    const rows = listSummaries(f.db, r.variantId);
    expect(rows.length).toBeGreaterThan(4);
    for (const row of rows) expect(getOwnFacts(f.db, row.id), `summary ${row.id}`).not.toBeNull();
    const leaves = rows.filter((x) => x.kind === 'leaf').sort((a, b) => a.firstPosition - b.firstPosition);
    // The first request of the session reaches every leaf through the chain of priors.
    for (const leaf of leaves) expect(leaf.text).toContain('Implement spotter-gqc');
    const condensed = rows.filter((x) => x.kind === 'condensed');
    expect(condensed.length).toBeGreaterThan(0);
    for (const c of condensed) {
      const own = getOwnFacts(f.db, c.id)!;
      expect(ledgerOf(own, c.text).lost).toEqual([]);
    }
  });

  it('watermark and two-line passes keep their summaries\' facts too, and every kept fact is in the text', async () => {
    const s = sessionBySource(f, 'spotter__258c7280');
    for (const strategy of ['watermark', 'two-line'] as const) {
      const r = await runCompaction(f.db, { sessionId: s.id, strategy, force: true });
      expect(r.status, strategy).toBe('completed');
      const rows = listSummaries(f.db, r.variantId).filter((x) => !x.compacted);
      expect(rows.length, strategy).toBeGreaterThan(0);
      for (const row of rows) {
        const own = getOwnFacts(f.db, row.id);
        // The facts the extractive summarizer returned with the text (not read back from it): some, and all in the text.
        expect(own?.facts.length ?? 0, `${strategy} summary ${row.id}`).toBeGreaterThan(0);
        expect(ledgerOf(own!, row.text).lost, `${strategy} summary ${row.id}`).toEqual([]);
      }
    }
  });
});
