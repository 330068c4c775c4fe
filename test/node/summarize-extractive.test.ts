/**
 * The extractive summarizer (shared/summarize/extractive.ts) as a hand-off: its sections in
 * order, each holding what its name says, and each wrong case of the fact-list summarizer it
 * replaced (the shortened path, the error fixed by another command, the first line of output
 * as the error, the rewritten file labelled created, the command cut mid-quote) done right,
 * on a hand-made span and on the spotter fixture's span Claude Code compacted. Deterministic,
 * bounded, never empty and never the source verbatim; it fills its target or says it ran out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetTokens, createExtractiveSummarizer, extractiveSummarize, extractiveSummary, EXTRACTIVE_PROMPT_VERSION, MAX_BUDGET_TOKENS } from '../../shared/summarize/extractive.js';
import { SUMMARY_SECTIONS } from '../../shared/summarize/sections.js';
import { summaryNotes } from '../../shared/summarize/summary-facts.js';
import { commandLine } from '../../shared/summarize/read-turns.js';
import { itemsToSourceText, summaryToItem, turnsToItems } from '../../shared/model/items.js';
import type { ContentBlock, Role, Turn } from '../../shared/model/turn.js';
import { listExternalCompactions, listTurns } from '../../electron/store/turns.js';
import { countTokens } from '../../electron/tokenizer.js';
import { runCompaction } from '../../electron/engine/engine.js';
import { listSummaries } from '../../electron/store/variants.js';
import { fixtureDb, sessionBySource, type FixtureDb } from '../helpers/fixture-sessions.js';

const turn = (role: Role, ...blocks: ContentBlock[]) => ({ role, blocks });
const text = (t: string): ContentBlock => ({ type: 'text', text: t });
let ids = 0;
/** A tool call and its result, as two turns (the call by the assistant, the result by the user, as Claude Code writes them). */
function call(name: string, input: Record<string, unknown>, result: string, isError = false, said?: string) {
  const id = `t${++ids}`;
  return [turn('assistant', ...(said ? [text(said)] : []), { type: 'tool_use', id, name, input }), turn('user', { type: 'tool_result', tool_use_id: id, content: result, is_error: isError })];
}
const bash = (command: string, result: string, isError = false, said?: string) => call('Bash', { command, description: 'run' }, result, isError, said);

const filler = Array.from({ length: 300 }, () => 'the quick brown fox jumps over the lazy dog').join(' ');
const SPEC = `○ app-13 · Close review session by closing all open annotations   [● P2 · OPEN]
Owner: Dev · Type: task

Output files:
- \`src/review.ts\` (modify)
- \`test/review.test.ts\` (modify)

Technical specs:
- button labeled \`Close review session\`.
- show flash with exact closed count (e.g. \`Closed 7 annotations\`).
- tokens expire after 300 s; read the TTL from REVIEW_TOKEN_TTL.

BLOCKS
  ← ○ app-14: Launch the review conversation ● P2`;

const SESSION = [
  turn('user', text('Please implement app-12 and then app-13. Keep the public API of src/review.ts stable.')),
  ...bash('bd update app-12 --status in_progress', '✓ Updated issue: app-12'),
  ...call('Read', { file_path: '/repo/scripts/build.sh' }, `#!/bin/sh\nnpm run build\n${filler}`),
  ...call('Edit', { file_path: '/repo/spotter-plugin/scripts/lib/trace_context.sh', old_string: 'a', new_string: 'b' }, 'The file /repo/spotter-plugin/scripts/lib/trace_context.sh has been updated successfully.'),
  ...call('Read', { file_path: '/repo/src/config.ts' }, 'export const config = {};'),
  ...call('Write', { file_path: '/repo/src/config.ts', content: 'export const config = { strict: true };' }, 'The file /repo/src/config.ts has been updated. Here is the result of running cat -n'),
  ...call('Write', { file_path: '/repo/src/parser.ts', content: 'export function parse() {}' }, 'File created successfully at: /repo/src/parser.ts', false, "I'll keep the parser in one file because the tests import it directly."),
  ...bash('npx tsc --noEmit', 'Exit code 2\nChecking 3 source files ...\nsrc/parser.ts(4,1): error TS1005: \';\' expected.', true),
  ...call('Edit', { file_path: '/repo/src/parser.ts', old_string: 'x', new_string: 'y' }, 'The file /repo/src/parser.ts has been updated successfully.'),
  ...bash('npx tsc --noEmit', ''),
  ...bash('npx vitest run test/parser.test.ts', ' Test Files  1 passed (1)\n      Tests  12 passed (12)'),
  ...bash('git add .env.local src/parser.ts', 'The following paths are ignored by one of your .gitignore files:\n.env.local\nhint: Use -f if you really want to add them.', true),
  ...bash('git add -f .env.local src/parser.ts', ''),
  ...bash('./deploy.sh --dry-run', 'Exit code 126\n/bin/sh: 1: ./deploy.sh: Permission denied', true),
  ...bash('bash -c ./deploy.sh --dry-run', `deployed (dry run)\n${filler}`),
  ...bash('git commit -m "$(cat <<\'EOF\'\nAdd the parser (app-12)\n\nWith tests.\nEOF\n)"', '[main 1a2b3c4] Add the parser (app-12)\n 2 files changed, 40 insertions(+)'),
  ...bash('bd close app-12 --reason="Extracted the parser; tests pass"', '✓ Closed app-12: Extracted the parser; tests pass'),
  ...bash('bd show app-13', SPEC),
  ...bash('bd update app-13 --status in_progress', '✓ Updated issue: app-13'),
  ...call('Edit', { file_path: '/repo/src/review.ts', old_string: 'a', new_string: 'b' }, 'The file /repo/src/review.ts has been updated successfully.', false, 'Now I add the close_review_session handler to Review.Session.'),
  turn('assistant', text('Next I will add the button and then the tests in /repo/test/review.test.ts.')),
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

const leafOf = (turns: ReadonlyArray<Pick<Turn, 'role' | 'blocks'>>, targetTokens = 2000) => extractiveSummarize({ purpose: 'leaf', items: turnsToItems(turns), targetTokens, tier: 'normal' });

describe('extractive summarizer: a hand-off of a hand-made span', () => {
  const { text: summary, stats } = leafOf(SESSION);
  const titles = summary.split('\n').filter((l) => !l.startsWith('- ') && !l.startsWith('['));

  it('writes the hand-off sections first, in order, then the reference lists', () => {
    expect(titles).toEqual(SUMMARY_SECTIONS.map((s) => `${s}:`));
    expect(SUMMARY_SECTIONS.slice(0, 6)).toEqual(['Goal and constraints', 'Done', 'In progress', 'Next step', 'Decisions and why', 'Errors and how they were resolved']);
  });

  it('1. goal and constraints: the request in the user’s words, the spec’s values (labels, numbers with units, env vars)', () => {
    const goal = sectionLines(summary, 'Goal and constraints');
    expect(goal).toContain('request: Please implement app-12 and then app-13. Keep the public API of src/review.ts stable.');
    const spec = goal.find((l) => l.startsWith('spec app-13: '))!;
    for (const v of ['`Close review session`', '`Closed 7 annotations`', '300 s', 'REVIEW_TOKEN_TTL']) expect(spec).toContain(v);
  });

  it('2. done: the commit with its hash and subject, the task closed, the tests passed with their counts', () => {
    const done = sectionLines(summary, 'Done');
    expect(done).toContain('commit 1a2b3c4 Add the parser (app-12)');
    expect(done).toContain('closed app-12');
    expect(done).toContain('tests passed: `npx vitest run test/parser.test.ts` → 12 passed');
  });

  it('3. in progress exactly: the task claimed since, uncommitted, edited and not checked since', () => {
    expect(sectionLines(summary, 'In progress')).toEqual([
      'task: app-13 Close review session by closing all open annotations',
      'state: uncommitted: /repo/src/review.ts changed since commit 1a2b3c4; edited, not compiled or tested since the last edit',
    ]);
  });

  it('4. next step: the last stated intent and what remains, never "the last one above"', () => {
    const next = sectionLines(summary, 'Next step');
    expect(next).toContain('stated intent: Next I will add the button and then the tests in /repo/test/review.test.ts.');
    expect(next).toContain('remaining: app-13: test/review.test.ts (modify) not changed yet');
    expect(next).toContain('remaining: app-14 Launch the review conversation');
    expect(summary).not.toContain('the last one above');
  });

  it('5. decisions and why: the sentence with the choice and its reason', () => {
    expect(sectionLines(summary, 'Decisions and why')).toContain("I'll keep the parser in one file because the tests import it directly.");
  });

  it('6. errors: the message line, resolved by the later command on the same target (another command counts)', () => {
    expect(sectionLines(summary, 'Errors and how they were resolved')).toEqual([
      // The message, not "Checking 3 source files …"; fixed by the same check after an edit.
      "src/parser.ts(4,1): error TS1005: ';' expected. (`npx tsc --noEmit`) — resolved: after editing /repo/src/parser.ts, `npx tsc --noEmit` → ok",
      // .gitignore refused → `git add -f` worked: a different command on the same files.
      'The following paths are ignored by one of your .gitignore files: (`git add .env.local src/parser.ts`) — resolved: `git add -f .env.local src/parser.ts` → ok',
      // Permission denied → `bash -c` worked: the same script.
      '/bin/sh: 1: ./deploy.sh: Permission denied (`./deploy.sh --dry-run`) — resolved: `bash -c ./deploy.sh --dry-run` → ok',
    ]);
  });

  it('7. files in full as written, a rewrite in place modified, a new file created; commands whole with their quoting', () => {
    const files = sectionLines(summary, 'Files');
    expect(files).toContain('/repo/spotter-plugin/scripts/lib/trace_context.sh (modified; edited 1×)');
    expect(files).toContain('/repo/scripts/build.sh (read 1×)');
    expect(files.some((l) => l.startsWith('scripts/lib/trace_context.sh'))).toBe(false);
    expect(files).toContain('/repo/src/config.ts (modified; written 1×, read 1×)');
    expect(files).toContain('/repo/src/parser.ts (created; edited 1×, written 1×)');
    const commands = sectionLines(summary, 'Commands and results');
    expect(commands).toContain('`bd close app-12 --reason="Extracted the parser; tests pass"` → ok');
    // A here-document keeps its delimiters and closing quote: the command still parses.
    expect(commands).toContain('`git commit -m "$(cat <<\'EOF\' Add the parser (app-12) … EOF ↵ )"` → ok');
    expect(commandLine('git commit -m "$(cat <<\'EOF\'\nSubject\n\nBody\nEOF\n)"').split('"').length % 2).toBe(1);
  });

  it('fills its target or says it ran out of material', () => {
    // This span has about 850 tokens of material: at 2,000 it runs out and says so, in its header and stats.
    expect(stats.outOfMaterial).toBe(true);
    expect(stats.chosen).toBe(stats.candidates);
    expect(summary.split('\n')[0]).toMatch(/^\[leaf summary of 40 items; ran out of material at \d+ of 2000 tokens\]$/);
    expect(sectionLines(summary, 'Key identifiers')).toEqual(['Review.Session']);
    // At a target under its material it fills the target instead, and does not say so.
    const small = leafOf(SESSION, 300);
    expect(small.stats.outOfMaterial).toBe(false);
    expect(small.stats.tokens).toBeGreaterThan(0.8 * 300);
    expect(small.stats.tokens).toBeLessThanOrEqual(300);
    expect(small.text.split('\n')[0]).toBe('[leaf summary of 40 items]');
  });

  it('reads back from its own text: a condensation of it keeps the hand-off', () => {
    const back = summaryNotes(summary);
    expect(back.commits.map((c) => c.text)).toEqual(['1a2b3c4 Add the parser (app-12)']);
    expect(back.task?.text).toBe('app-13 Close review session by closing all open annotations');
    expect(back.errors.every((e) => e.resolution !== null)).toBe(true);
    // Condensed alone (at most 90% of its child's tokens), it keeps the hand-off: Done to Errors whole.
    const again = extractiveSummary({ purpose: 'condensed', items: [summaryToItem(summary)], targetTokens: 2000, tier: 'normal' });
    expect(sectionLines(again, 'Goal and constraints')[0]).toBe(sectionLines(summary, 'Goal and constraints')[0]);
    for (const s of SUMMARY_SECTIONS.slice(1, 6)) expect(sectionLines(again, s), s).toEqual(sectionLines(summary, s));
  });

  it('condenses a hand-off of the whole span, newest state winning', () => {
    const cut = SESSION.findIndex((t) => t.blocks.some((b) => b.type === 'tool_use' && JSON.stringify(b.input).includes('git add .env.local')));
    const first = leafOf(SESSION.slice(0, cut)).text;
    const second = leafOf(SESSION.slice(cut)).text;
    // The first half: app-12 in progress, nothing committed.
    expect(sectionLines(first, 'In progress')[0]).toBe('task: app-12');
    const merged = extractiveSummary({ purpose: 'condensed', items: [summaryToItem(first), summaryToItem(second)], targetTokens: 2000, tier: 'normal' });
    expect(sectionLines(merged, 'Goal and constraints')[0]).toBe('request: Please implement app-12 and then app-13. Keep the public API of src/review.ts stable.');
    expect(sectionLines(merged, 'Done')).toContain('commit 1a2b3c4 Add the parser (app-12)');
    // Newest state: app-13 is in progress, app-12 (closed in the second half) is not.
    expect(sectionLines(merged, 'In progress')[0]).toBe('task: app-13 Close review session by closing all open annotations');
    expect(merged).not.toContain('task: app-12');
    expect(sectionLines(merged, 'Errors and how they were resolved')[0]).toMatch(/^src\/parser\.ts\(4,1\): error TS1005.* — resolved: /);
    expect(sectionLines(merged, 'Files')).toContain('/repo/src/parser.ts (created; edited 1×, written 1×)');
  });

  it('a leaf carries its prior’s goal and open errors, and resolves them when its span does', () => {
    const cut = SESSION.findIndex((t) => t.blocks.some((b) => b.type === 'tool_use' && JSON.stringify(b.input).includes('"./deploy.sh --dry-run"')));
    const prior = leafOf(SESSION.slice(0, cut + 2)).text;
    expect(sectionLines(prior, 'Errors and how they were resolved').at(-1)).toMatch(/Permission denied .* — still open$/);
    const next = extractiveSummary({ purpose: 'leaf', items: turnsToItems(SESSION.slice(cut + 2)), priorSummary: prior, targetTokens: 2000, tier: 'normal' });
    expect(sectionLines(next, 'Goal and constraints')[0]).toBe('request: Please implement app-12 and then app-13. Keep the public API of src/review.ts stable.');
    expect(sectionLines(next, 'Errors and how they were resolved')).toContain('/bin/sh: 1: ./deploy.sh: Permission denied (`./deploy.sh --dry-run`) — resolved: `bash -c ./deploy.sh --dry-run` → ok');
  });

  it('is deterministic, bounded whatever the target, never empty and never the source verbatim', () => {
    expect(extractiveSummary({ purpose: 'leaf', items: turnsToItems(SESSION), targetTokens: 300, tier: 'normal' })).toBe(leafOf(SESSION, 300).text);
    expect(budgetTokens(1_000_000, 'normal')).toBe(MAX_BUDGET_TOKENS);
    expect(budgetTokens(120, 'aggressive')).toBe(60);
    for (const items of [turnsToItems([turn('user', text('ok'))]), turnsToItems([turn('assistant')]), []]) {
      const s = extractiveSummary({ purpose: 'leaf', items, targetTokens: 10, tier: 'normal' });
      expect(s.trim().length).toBeGreaterThan(0);
      expect(s).not.toBe(itemsToSourceText(items));
    }
  });

  it('implements the Summarizer interface (kind and model "extractive", version extractive-3) and returns no ledger facts', async () => {
    const s = createExtractiveSummarizer();
    expect([s.kind, s.model, s.promptVersion]).toEqual(['extractive', 'extractive', EXTRACTIVE_PROMPT_VERSION]);
    expect(EXTRACTIVE_PROMPT_VERSION).toBe('extractive-3');
    const r = await s.summarize({ purpose: 'leaf', items: turnsToItems(SESSION), targetTokens: 1000, tier: 'normal' });
    expect(r.text).toBe(extractiveSummary({ purpose: 'leaf', items: turnsToItems(SESSION), targetTokens: 1000, tier: 'normal' }));
    expect(r.facts).toBeUndefined();
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

  it('sections only from the list and in order; no markup, escapes or timestamps among files and names', () => {
    for (const { source, turns } of spans(60)) {
      const s = extractiveSummary({ purpose: 'leaf', items: turnsToItems(turns), targetTokens: 1200, tier: 'normal' });
      const titles = s.split('\n').filter((l) => !l.startsWith('- ') && !l.startsWith('['));
      const order = titles.map((t) => SUMMARY_SECTIONS.indexOf(t.slice(0, -1) as (typeof SUMMARY_SECTIONS)[number]));
      expect(order.every((i) => i >= 0), source).toBe(true);
      expect(order, source).toEqual([...order].sort((a, b) => a - b));
      for (const line of [...sectionLines(s, 'Files'), ...sectionLines(s, 'Key identifiers')]) expect(line, source).not.toMatch(/<\/?[a-z][\w-]*>|\\n|\\t|\d{4}-\d{2}-\d{2}T\d{2}/);
      expect(s, source).not.toMatch(/<\/?(?:system-reminder|command-name|task-notification)\b/);
      expect(s, source).not.toContain('the last one above');
    }
  });

  it('never goes over its target (real o200k tokens), and a tiny span gives a tiny summary', () => {
    for (const { source, turns } of spans(40).slice(0, 40)) {
      const items = turnsToItems(turns);
      for (const target of [60, 300, 1200]) {
        const exact = extractiveSummary({ purpose: 'leaf', items, targetTokens: target, tier: 'normal' }, (t) => countTokens(t));
        expect(countTokens(exact), `${source} @${target}`).toBeLessThanOrEqual(Math.max(target, countTokens('[leaf summary of 40 items]')));
        const estimated = extractiveSummary({ purpose: 'leaf', items, targetTokens: target, tier: 'normal' });
        expect(countTokens(estimated), `${source} @${target} estimated`).toBeLessThanOrEqual(Math.max(target, countTokens('[leaf summary of 40 items]')));
      }
    }
    for (const s of f.sessions) {
      const turns = listTurns(f.db, s.id, { from: 0, to: 2 });
      if (turns.length === 0) continue;
      const items = turnsToItems(turns);
      const summary = extractiveSummary({ purpose: 'leaf', items, targetTokens: 1200, tier: 'normal' });
      expect(countTokens(summary), s.sourceFile).toBeLessThanOrEqual(Math.max(countTokens(itemsToSourceText(items)), countTokens('[leaf summary of 2 items]')));
    }
  });

  /** The spotter span Claude Code compacted, as dag leaves (≤ 20,000 tokens each, chained priors), and Claude Code's size. */
  function spotter(): { turns: Turn[]; leaves: string[]; ccTokens: number } {
    const s = sessionBySource(f, 'spotter__258c7280');
    const [cc] = listExternalCompactions(f.db, s.id);
    const turns = listTurns(f.db, s.id, { from: cc.firstPosition, to: cc.lastPosition + 1 });
    const leaves: string[] = [];
    let prior: string | null = null;
    for (let i = 0, tokens = 0, chunk: Turn[] = []; i <= turns.length; i++) {
      if (i === turns.length || (chunk.length > 0 && tokens + turns[i].tokenCount > 20_000)) {
        prior = extractiveSummary({ purpose: 'leaf', items: turnsToItems(chunk), priorSummary: prior, targetTokens: 1200, tier: 'normal' });
        leaves.push(prior);
        chunk = [];
        tokens = 0;
      }
      if (i < turns.length) {
        chunk.push(turns[i]);
        tokens += turns[i].tokenCount;
      }
    }
    return { turns, leaves, ccTokens: countTokens(cc.summaryText!) };
  }

  /** Each item of the hand-off and each wrong case, on a summary of the spotter span. */
  function expectSpotterHandoff(summary: string): void {
    expect(sectionLines(summary, 'Goal and constraints')).toContain('request: Implement spotter-gqc');
    // A spec value from the tracker's `bd show` output.
    expect(sectionLines(summary, 'Goal and constraints').join('\n')).toContain('`Close review session`');
    const done = sectionLines(summary, 'Done');
    for (const c of ['commit 99b497c feat: transcript + terminal annotations with message references (spotter-gqc)', 'commit ceff8c3 feat: add annotation open/closed lifecycle state (spotter-gqc.4)', 'commit bb53fb4 feat: add project-level review page for ongoing annotations (spotter-gqc.5)']) expect(done).toContain(c);
    expect(done.some((l) => l.startsWith('tests passed: ') && l.endsWith('14 doctests, 73 tests, 0 failures'))).toBe(true);
    const now = sectionLines(summary, 'In progress');
    expect(now[0]).toBe('task: spotter-gqc.6 Close project review session by closing all open annotations');
    expect(now[1]).toMatch(/^state: uncommitted: \/home\/USER\/projects\/spotter-worktrees\/spotter-gqc\/lib\/spotter_web\/live\/project_review_live\.ex \(3 edits\) changed since commit bb53fb4/);
    const next = sectionLines(summary, 'Next step');
    expect(next).toContain('remaining: spotter-gqc.7 Launch project review conversation with automatic hook-injected context');
    expect(sectionLines(summary, 'Decisions and why').some((d) => /SQLite doesn't support/.test(d))).toBe(true);
    // The push refused for want of an upstream, resolved by the other push command.
    expect(sectionLines(summary, 'Errors and how they were resolved')).toContain('fatal: The current branch spotter-gqc has no upstream branch. (`git push 2>&1`) — resolved: `git push --set-upstream origin spotter-gqc 2>&1` → ok');
    const files = sectionLines(summary, 'Files');
    // session_live.ex was rewritten in place (Write over a file it had read): modified, not created.
    expect(files.find((l) => l.includes('/lib/spotter_web/live/session_live.ex'))).toMatch(/ \(modified; /);
    expect(files.find((l) => l.includes('/lib/spotter_web/live/project_review_live.ex ('))).toMatch(/ \(created; /);
    for (const l of files) expect(l.startsWith('/home/USER/projects/spotter-worktrees/spotter-gqc/'), l).toBe(true);
    // Commit commands keep their quoting: every double quote closes.
    for (const l of sectionLines(summary, 'Commands and results')) if (l.includes('git commit')) expect(l.split('"').length % 2, l).toBe(1);
  }

  it('a leaf of the whole span at Claude Code’s size is a hand-off, filling its target', () => {
    const { turns, ccTokens } = spotter();
    const { text: summary, stats } = extractiveSummarize({ purpose: 'leaf', items: turnsToItems(turns), targetTokens: ccTokens, tier: 'normal' }, (t) => countTokens(t));
    expectSpotterHandoff(summary);
    expect(stats.outOfMaterial).toBe(false);
    expect(countTokens(summary)).toBeLessThanOrEqual(ccTokens);
    expect(countTokens(summary)).toBeGreaterThan(0.9 * ccTokens);
  });

  it('the dag’s condensation of its chained leaves keeps the hand-off of the whole span', () => {
    const { leaves, ccTokens } = spotter();
    // 207 turns, 109,506 tokens by the stored counts: 7 chunks of at most 20,000.
    expect(leaves.length).toBe(7);
    for (const leaf of leaves) expect(sectionLines(leaf, 'Goal and constraints')).toContain('request: Implement spotter-gqc');
    const condensed = extractiveSummary({ purpose: 'condensed', items: leaves.map((l) => summaryToItem(l)), targetTokens: ccTokens, tier: 'normal' }, (t) => countTokens(t));
    expectSpotterHandoff(condensed);
  });

  it('a dag pass writes hand-offs and chains its leaves', async () => {
    const s = sessionBySource(f, 'spotter__258c7280');
    const r = await runCompaction(f.db, { sessionId: s.id, strategy: 'dag', params: { leafChunkTokens: 20_000, condensedMinFanout: 4 }, force: true });
    expect(r.status).toBe('completed');
    const rows = listSummaries(f.db, r.variantId);
    expect(rows.length).toBeGreaterThan(4);
    for (const leaf of rows.filter((x) => x.kind === 'leaf')) expect(leaf.text).toContain('request: Implement spotter-gqc');
    for (const c of rows.filter((x) => x.kind === 'condensed')) expect(c.text).toContain('Done:');
  });
});
