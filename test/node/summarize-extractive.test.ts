/**
 * The extractive summarizer (shared/summarize/extractive.ts): what it keeps, that it is
 * deterministic, bounded, never empty and never the source verbatim.
 */
import { describe, expect, it } from 'vitest';
import { budgetChars, createExtractiveSummarizer, extractiveSummary, MAX_BUDGET_CHARS, MIN_BUDGET_CHARS } from '../../shared/summarize/extractive.js';
import { itemsToSourceText, summaryToItem, turnsToItems } from '../../shared/summarize/items.js';
import type { ContentBlock, Role } from '../../shared/model/turn.js';

const filler = Array.from({ length: 300 }, () => 'the quick brown fox jumps over the lazy dog').join(' ');
const turn = (role: Role, ...blocks: ContentBlock[]) => ({ role, blocks });
const text = (t: string): ContentBlock => ({ type: 'text', text: t });

const SESSION = [
  turn('user', text('Please fix the failing test in src/store/db.ts. It crashes when the file is missing.')),
  turn('assistant', { type: 'thinking', thinking: 'I should run the tests first.' }, text("I'll run the test suite first. We decided to keep better-sqlite3 12.11.1 instead of 13.0.0."), { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npx vitest run test/node/db.test.ts' } }),
  turn('user', { type: 'tool_result', tool_use_id: 't1', content: "FAIL test/node/db.test.ts > opens a database\nTypeError: Cannot read properties of undefined (reading 'prepare')\n    at openDatabase (electron/store/db.ts:42:7)\nTests: 1 failed, 11 passed", is_error: true }),
  turn('assistant', { type: 'tool_use', id: 't2', name: 'Read', input: { file_path: '/repo/electron/store/db.ts' } }),
  turn('user', { type: 'tool_result', tool_use_id: 't2', content: filler, is_error: false }),
  turn('assistant', text('The root cause is that openDatabase returns before migrate() runs. TODO: add a regression test for listTurnMetas. See https://github.com/WiseLibs/better-sqlite3/issues/1234 for the readonly option.')),
  turn('user', text('Great, next we need to update README.md with the new CLI flags --db and --json.')),
];

describe('extractive summarizer', () => {
  it('keeps requests, decisions, errors, open tasks, paths, commands, URLs, identifiers and numbers', () => {
    const summary = extractiveSummary({ purpose: 'leaf', items: turnsToItems(SESSION), targetTokens: 1000, tier: 'normal' });
    expect(summary).toBe(
      [
        '[Extractive leaf summary of 7 items (4 user, 3 assistant)]',
        'Requests:',
        '- Please fix the failing test in src/store/db.ts.',
        '- Great, next we need to update README.md with the new CLI flags --db and --json.',
        'Decisions:',
        "- I'll run the test suite first. We decided to keep better-sqlite3 12.11.1 instead of 13.0.0.",
        'Errors:',
        '- FAIL test/node/db.test.ts > opens a database',
        "- TypeError: Cannot read properties of undefined (reading 'prepare')",
        '- Tests: 1 failed, 11 passed',
        'Open tasks:',
        '- The root cause is that openDatabase returns before migrate() runs. TODO: add a regression test for listTurnMetas. See https://github.com/WiseLibs/better-sqlite3/issues/1234 for the readonly option.',
        'Files: src/store/db.ts, test/node/db.test.ts, electron/store/db.ts, /repo/electron/store/db.ts, README.md',
        'Commands: npx vitest run test/node/db.test.ts',
        'URLs: https://github.com/WiseLibs/better-sqlite3/issues/1234',
        'Identifiers: TypeError, openDatabase, file_path, migrate(), listTurnMetas',
        'Numbers: 12.11.1, 13.0.0, 42:7, 11',
      ].join('\n'),
    );
  });

  it('is deterministic: the same request gives the same text', () => {
    const req = { purpose: 'leaf' as const, items: turnsToItems(SESSION), targetTokens: 300, tier: 'normal' as const };
    expect(extractiveSummary(req)).toBe(extractiveSummary({ ...req, items: turnsToItems(SESSION) }));
  });

  it('stays within the budget, halved on the aggressive tier', () => {
    const items = turnsToItems(SESSION);
    const normal = extractiveSummary({ purpose: 'leaf', items, targetTokens: 120, tier: 'normal' });
    const aggressive = extractiveSummary({ purpose: 'leaf', items, targetTokens: 120, tier: 'aggressive' });
    expect(budgetChars(120, 'normal')).toBe(480);
    expect(budgetChars(120, 'aggressive')).toBe(240);
    expect(normal.length).toBeLessThanOrEqual(480);
    expect(aggressive.length).toBeLessThanOrEqual(240);
    expect(aggressive.length).toBeLessThan(normal.length);
    // the request comes first, whatever the budget
    expect(aggressive).toContain('- Please fix the failing test in src/store/db.ts.');
  });

  it('is bounded whatever the target, and never longer than half a large source', () => {
    expect(budgetChars(1_000_000, 'normal')).toBe(MAX_BUDGET_CHARS);
    expect(budgetChars(0, 'normal')).toBe(MIN_BUDGET_CHARS);
    const big = Array.from({ length: 400 }, (_, i) => turn(i % 2 ? 'assistant' : 'user', text(`step ${i}: edit src/module${i}.ts and run \`npm test -- --grep case${i}\`; TODO: check fooBar${i} next.`)));
    const items = turnsToItems(big);
    const s = extractiveSummary({ purpose: 'chunk', items, targetTokens: 1_000_000, tier: 'normal' });
    expect(s.length).toBeLessThanOrEqual(Math.floor(itemsToSourceText(items).length / 2));
    expect(s.length).toBeLessThanOrEqual(MAX_BUDGET_CHARS);
  });

  it('is never empty and never the source verbatim, even for one tiny or empty turn', () => {
    for (const items of [turnsToItems([turn('user', text('ok'))]), turnsToItems([turn('assistant')]), []]) {
      const s = extractiveSummary({ purpose: 'leaf', items, targetTokens: 10, tier: 'normal' });
      expect(s.trim().length).toBeGreaterThan(0);
      expect(s).not.toBe(itemsToSourceText(items));
      expect(s.startsWith('[Extractive leaf summary of')).toBe(true);
    }
  });

  it('condensing extractive summaries keeps their sections', () => {
    const a = extractiveSummary({ purpose: 'leaf', items: turnsToItems(SESSION.slice(0, 3)), targetTokens: 1000, tier: 'normal' });
    const b = extractiveSummary({ purpose: 'leaf', items: turnsToItems(SESSION.slice(3)), targetTokens: 1000, tier: 'normal' });
    const c = extractiveSummary({ purpose: 'condensed', items: [summaryToItem(a), summaryToItem(b)], targetTokens: 1000, tier: 'normal' });
    expect(c.split('\n').slice(0, 6)).toEqual([
      '[Extractive condensed summary of 2 summaries (2 summary)]',
      'Requests:',
      '- Please fix the failing test in src/store/db.ts.',
      '- Great, next we need to update README.md with the new CLI flags --db and --json.',
      'Decisions:',
      "- I'll run the test suite first. We decided to keep better-sqlite3 12.11.1 instead of 13.0.0.",
    ]);
    // a condensation compresses: at most half of its children's text
    expect(c.length).toBeLessThanOrEqual(Math.floor((a.length + b.length) / 2));
  });

  it('a rolling summary carries the previous summary forward; a leaf only notes continuity', () => {
    const prior = 'Requests:\n- Migrate the store to WAL mode.';
    const rolling = extractiveSummary({ purpose: 'rolling', items: turnsToItems(SESSION.slice(6)), priorSummary: prior, targetTokens: 400, tier: 'normal' });
    expect(rolling).toContain('- Migrate the store to WAL mode.');
    expect(rolling).toContain('continuing the previous summary');
    const leaf = extractiveSummary({ purpose: 'leaf', items: turnsToItems(SESSION.slice(6)), priorSummary: prior, targetTokens: 400, tier: 'normal' });
    expect(leaf).not.toContain('Migrate the store');
  });

  it('implements the Summarizer interface with kind and model "extractive"', async () => {
    const s = createExtractiveSummarizer();
    expect([s.kind, s.model, s.promptVersion]).toEqual(['extractive', 'extractive', 'extractive-1']);
    const r = await s.summarize({ purpose: 'leaf', items: turnsToItems(SESSION), targetTokens: 1000, tier: 'normal' });
    expect(r.text).toBe(extractiveSummary({ purpose: 'leaf', items: turnsToItems(SESSION), targetTokens: 1000, tier: 'normal' }));
    expect(r.model).toBe('extractive');
  });
});
