/**
 * The text-level retention score (shared/retention/text.ts): the concrete strings of a span
 * searched as written in what the model receives. Hand-made spans where every string is
 * known; its independence from the ledger's extractor and from every summarizer; and, on the
 * real spotter session, the extractive summarizer scored by it where the fact ledger says 100%.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentBlock, Role } from '../../shared/model/turn.js';
import { commandText, messagesText, spanStrings, sumTextRetention, textRetention, textRetentionLabel, textRetentionOf } from '../../shared/retention/text.js';
import { FACT_CATEGORIES, type SummaryLedger } from '../../shared/facts/index.js';
import { runCompaction } from '../../electron/engine/engine.js';
import { importFiles } from '../../electron/importers/import.js';
import { listSummaries, listVariants } from '../../electron/store/variants.js';
import { listTurns } from '../../electron/store/turns.js';
import { runCli } from '../../electron/cli/run.js';
import { FIXTURES, ROOT } from '../helpers/fixture-sessions.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';

let toolId = 0;
const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const use = (name: string, input: unknown): ContentBlock => ({ type: 'tool_use', id: `toolu_${++toolId}`, name, input });
const result = (content: string, isError = false): ContentBlock => ({ type: 'tool_result', tool_use_id: 'x', content, is_error: isError });
const turn = (role: Role, ...blocks: ContentBlock[]) => ({ role, blocks });

const SPAN = [
  turn('user', text('Fix AshComputer.LiveView in lib/ash_computer/live_view.ex; it takes 120 ms and uses highlight.js, e.g. for code. <system-reminder>ignore lib/secret.ex</system-reminder>')),
  turn('assistant', use('Read', { file_path: '/home/u/proj/lib/ash_computer/live_view.ex' })),
  turn('user', result('defmodule AshComputer.LiveView do\n  def mountFoo, do: lib/other.ex\nend')),
  turn('assistant', text('Running the tests: 12 tests, 1 failure. Phoenix.ConnTest.build_conn() is missing.'), use('Bash', { command: 'cd /home/u/proj && mix test test/live_view_test.exs 2>&1 | tail -20' })),
  turn('user', result('Exit code 2\n** (CompileError) lib/ash_computer/live_view.ex:3', true)),
  turn('assistant', use('Edit', { file_path: '/home/u/proj/lib/ash_computer/live_view.ex', old_string: 'mountFoo', new_string: 'mountBar' })),
];

describe('the strings of a span', () => {
  it('paths as written, identifiers whole, numbers with units, commands as run (without the cd); nothing from tool output, file edits or harness markup', () => {
    expect(spanStrings(SPAN).map((s) => `${s.kind} ${s.text}`)).toEqual([
      'path lib/ash_computer/live_view.ex',
      'identifier AshComputer.LiveView',
      'number 120 ms',
      'path /home/u/proj/lib/ash_computer/live_view.ex',
      'identifier Phoenix.ConnTest.build_conn()',
      'number 12 tests',
      'command mix test test/live_view_test.exs 2>&1 | tail -20',
      'path test/live_view_test.exs',
    ]);
    expect(commandText('cd /x &&  npm run build -- --watch 2>/dev/null | head -n 5\nnext line')).toBe('npm run build -- --watch 2>/dev/null | head -n 5');
  });

  it('a summary keeps a string only when it writes it: a path as written or from the project directory on, an identifier whole, a number with its unit', () => {
    const strings = spanStrings(SPAN);
    const r = textRetentionOf(strings, 'Fixed AshComputer in lib/ash_computer/live_view.ex (the LiveView module); 120ms; ran `mix test test/live_view_test.exs 2>&1 | tail -20`.');
    // Kept: the three paths (the absolute one from /home/u/proj on; the test file inside the
    // command), the number (space optional), the command. Lost: the identifiers, written in halves.
    expect([r.kept, r.total]).toEqual([5, 8]);
    expect(r.byKind).toEqual({ path: { kept: 3, total: 3 }, identifier: { kept: 0, total: 2 }, number: { kept: 1, total: 2 }, command: { kept: 1, total: 1 } });
    expect(r.lost).toEqual(['AshComputer.LiveView', 'Phoenix.ConnTest.build_conn()', '12 tests']);
    expect(textRetentionLabel(r)).toBe('text 5/8 (62.5%)');
    // The whole span's own text keeps everything it wrote.
    expect(textRetention(SPAN, messagesText(SPAN)).kept).toBe(8);
  });

  it('sums are per kind; a ledger stored without a text score makes the sum "not measured", never a partial figure', () => {
    const a = textRetentionOf(spanStrings(SPAN), 'lib/ash_computer/live_view.ex');
    const sum = sumTextRetention([a, a])!;
    expect([sum.kept, sum.total, sum.byKind.path.kept]).toEqual([4, 16, 4]);
    expect(sumTextRetention([a, undefined])).toBeNull();
    expect(textRetentionLabel(null)).toBe('text —');
  });
});

describe('independence', () => {
  it('nothing under shared/retention/ imports shared/facts/, shared/summarize/ or a summarizer; only the turn model', () => {
    const dir = path.join(ROOT, 'shared/retention');
    const imports: string[] = [];
    for (const f of fs.readdirSync(dir)) for (const m of fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)) imports.push(`${f}: ${m[1]}`);
    expect(imports).toEqual(['text.ts: ../model/turn.js']);
    // And shared/model/turn.ts imports nothing of the project but zod.
    const turnImports = [...fs.readFileSync(path.join(ROOT, 'shared/model/turn.ts'), 'utf8').matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]);
    expect(turnImports).toEqual(['zod']);
  });
});

describe('on the spotter session, with the extractive summarizer', { timeout: 120_000 }, () => {
  let t: TempDb;
  let sessionId: number;
  beforeAll(() => {
    t = tempDb('cs-text-retention-');
    sessionId = importFiles(t.db, [path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl')]).sessions[0].id;
  });
  afterAll(() => t.cleanup());

  it('scores each summary by its text beside its facts (no 100% by construction); both are stored with each summary and summed for the variant', async () => {
    const r = await runCompaction(t.db, { sessionId, strategy: 'dag', force: true });
    expect(r.status).toBe('completed');
    const summaries = listSummaries(t.db, r.variantId);
    const factsOf = (l: SummaryLedger) => [FACT_CATEGORIES.reduce((n, c) => n + l.retention[c].kept, 0), FACT_CATEGORIES.reduce((n, c) => n + l.retention[c].total, 0)];
    const perfect = summaries.filter((s) => {
      const [k, n] = factsOf(s.ledger!);
      return n > 0 && k === n;
    });
    // The fact ledger scores 10 of the 11 summaries 100% (the summarizer writes the ledger's own facts)...
    // The fact ledger no longer grades the summarizer's own extraction: 2 of the 11 summaries
    // score 100% by facts (10 did while the extractive summarizer wrote the ledger's facts), and
    // those two are leaves of a single string each.
    expect(summaries.length).toBe(11);
    expect(perfect.length).toBe(2);
    // Every summary is scored by its text against the turns it covers, stored with its ledger.
    for (const s of summaries.filter((x) => x.depth === 0)) expect(s.ledger!.text).toEqual(textRetention(listTurns(t.db, sessionId, { from: s.firstPosition, to: s.lastPosition + 1 }), s.text));
    const leaves = sumTextRetention(summaries.filter((x) => x.depth === 0).map((s) => s.ledger!.text))!;
    expect(leaves.kept).toBeGreaterThan(0);
    expect(leaves.kept).toBeLessThan(leaves.total);
    // The variant's row carries both, summed over its live summaries.
    const v = listVariants(t.db, sessionId).find((x) => x.id === r.variantId)!;
    const live = summaries.filter((s) => !s.compacted);
    expect(v.textRetention).toEqual(sumTextRetention(live.map((s) => s.ledger!.text)));
    expect(v.textRetention!.kept).toBeLessThan(v.textRetention!.total);
    // The source tool's own summary has one too (the baseline), and `ledger` prints both.
    let out = '';
    expect(await runCli(['ledger', String(sessionId), '--db', t.dbPath], { stdout: { write: (x: string) => (out += x) }, stderr: { write: () => {} }, env: { PATH: process.env.PATH }, cwd: t.dir })).toBe(0);
    expect(out).toMatch(/^Baseline: the source tool's summary of turns 0-206 \(\d+ tokens\): facts 41\/101 \(.*\); text \d+\/\d+ \(\d+\.\d%\)$/m);
    expect(out).toMatch(/^Variant \d+ \(dag\): facts \d+\/\d+ \(.*\); text \d+\/\d+ \(\d+\.\d%\)$/m);
  });
});
