/**
 * "Compact as of call N" (engine `asOfCall`, CLI `compact --as-of-call N`) and the CLI's
 * `compare` (JSON and Markdown), on the real 306-turn spotter session: Claude Code compacted
 * it before call 102 (its assistant turn is position 207, the compact boundary).
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/run.js';
import { openDatabase } from '../../electron/store/db.js';
import { runCompaction } from '../../electron/engine/engine.js';
import { createSummarizer } from '../../electron/summarize/index.js';
import { listToolCycles, listTurns } from '../../electron/store/turns.js';
import { getVariant, listRuns, listSummaries } from '../../electron/store/variants.js';
import { countTokens } from '../../electron/tokenizer.js';
import { buildReplay, validateMessages } from '../../shared/replay/index.js';
import type { SummarizeRequest, Summarizer } from '../../shared/strategies/summarizer.js';
import type { Comparison } from '../../shared/compare/index.js';
import { blocksToText } from '../../shared/model/turn.js';
import { FIXTURES, turnsDump } from '../helpers/fixture-sessions.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

class Sink {
  text = '';
  isTTY = false;
  write(s: string) {
    this.text += s;
    return true;
  }
}

let tmp: TempDir;
async function cli(args: string[]) {
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await runCli([...args, '--db', tmp.dbPath], { stdout, stderr, env: {}, cwd: tmp.dir });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

beforeEach(async () => {
  tmp = tempDir('cs-compare-cli-');
  expect((await cli(['import', SPOTTER, '--json'])).code).toBe(0);
});
afterEach(() => tmp.cleanup());

describe('compact as of call N', () => {
  it('the pass sees only the turns before the call: no request carries a later turn, summaries end before the cut, cycles whole, turns untouched', async () => {
    const db = openDatabase(tmp.dbPath);
    try {
      const before = turnsDump(db);
      const requests: SummarizeRequest[] = [];
      const extractive = createSummarizer({ kind: 'extractive' });
      const recording: Summarizer = { kind: extractive.kind, model: extractive.model, promptVersion: extractive.promptVersion, summarize: (req, signal) => (requests.push(req), extractive.summarize(req, signal)) };
      const r = await runCompaction(db, { sessionId: 1, strategy: 'dag', asOfCall: 102, force: true, summarizer: recording });
      expect(r.status).toBe('completed');
      // A variant of its own, the cut in its parameters and in the run's.
      expect(getVariant(db, r.variantId)!.params.asOfCall).toBe(102);
      expect(listRuns(db, r.variantId)[0].params).toMatchObject({ asOfCall: 102, cutTurn: 207 });
      const turns = listTurns(db, 1);
      // Texts of later turns that no earlier turn contains: none reached the summarizer.
      const earlier = turns.slice(0, 207).map((t) => blocksToText(t.blocks)).join('\n');
      const later = turns.slice(207).map((t) => blocksToText(t.blocks)).filter((t) => t.length >= 40 && !earlier.includes(t));
      expect(later.length).toBeGreaterThan(40);
      const seen = requests.flatMap((q) => q.items.map((i) => i.text)).join('\n');
      expect(requests.length).toBeGreaterThan(0);
      for (const t of later) expect(seen.includes(t)).toBe(false);
      // 8 leaves over turns 0-190 folded into 1 condensed summary; the fresh tail 191-206 is kept.
      const summaries = listSummaries(db, r.variantId);
      expect(summaries.map((s) => [s.kind, s.firstPosition, s.lastPosition, s.compacted])).toContainEqual(['condensed', 0, 190, false]);
      expect(Math.max(...summaries.map((s) => s.lastPosition))).toBe(190);
      // No leaf splits a tool_use from its tool_result.
      for (const s of summaries.filter((x) => x.kind === 'leaf'))
        for (const c of listToolCycles(db, 1)) expect(c.usePosition >= s.firstPosition && c.usePosition <= s.lastPosition).toBe(c.resultPosition >= s.firstPosition && c.resultPosition <= s.lastPosition);
      // What it sends at the cut is a valid request for both APIs; the tokens after are its view of turns 0-206.
      const v = getVariant(db, r.variantId)!;
      const replay = buildReplay({ strategy: 'dag', turns: turns.slice(0, 207), summaries, state: v.state, params: v.params, countTokens: (t) => countTokens(t) });
      expect(validateMessages(replay.messages, 'anthropic')).toEqual([]);
      expect(validateMessages(replay.messages, 'openai')).toEqual([]);
      // The run's figures are the visible tokens at stored counts (visibleTokens): turns 0-206 hold
      // 109,506; after, the summaries and the tail. The message list as sent (headers, glue) is a
      // different figure, 3,743 tokens: it is what the context model below reads.
      expect(r.stats).toMatchObject({ tokensBefore: 109506, tokensAfter: 3730 });
      expect(replay.totalTokens).toBe(3743);
      expect(turnsDump(db)).toBe(before);
    } finally {
      db.close();
    }
  });

  it('CLI: --as-of-call makes a distinct variant; a call past the end is refused', async () => {
    const plain = JSON.parse((await cli(['compact', '1', '--strategy', 'dag', '--force', '--json'])).stdout);
    const cut = await cli(['compact', '1', '--strategy', 'dag', '--force', '--as-of-call', '102', '--json']);
    expect(cut.code).toBe(0);
    const asOf = JSON.parse(cut.stdout);
    expect(asOf.variantId).not.toBe(plain.variantId);
    // Over the whole session the forced pass sees 140,001 stored tokens; as of call 102, turns 0-206 only.
    expect(asOf.stats.tokensBefore).toBe(109506);
    expect(plain.stats.tokensBefore).toBeGreaterThan(asOf.stats.tokensBefore);
    // Named for what it is; the plain variant keeps no name.
    const listed = JSON.parse((await cli(['variants', '1', '--json'])).stdout) as { variants: Array<{ id: number; name: string | null }> };
    expect(listed.variants.map((v) => [v.id, v.name])).toEqual([
      [plain.variantId, null],
      [asOf.variantId, 'dag as of call 102'],
    ]);
    const bad = await cli(['compact', '1', '--strategy', 'dag', '--as-of-call', '152', '--json']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/asOfCall must be a call of the session \(0-151\), got 152/);
  });
});

describe('compare', () => {
  it('prints the comparison as JSON and as a Markdown table', async () => {
    expect((await cli(['replay', '1', '--strategy', 'dag', '--json'])).code).toBe(0);
    expect((await cli(['replay', '1', '--strategy', 'rolling', '--json'])).code).toBe(0);
    expect((await cli(['compact', '1', '--strategy', 'dag', '--force', '--as-of-call', '102', '--json'])).code).toBe(0);
    const j = await cli(['compare', '1', '--variants', '1,2,3', '--json']);
    expect(j.code).toBe(0);
    const c = JSON.parse(j.stdout) as Comparison;
    expect(c.columns.map((x) => `${x.key}:${x.status}`)).toEqual(['v1:replayed', 'v2:replayed', 'v3:one-shot', 'none:baseline', 'source:baseline']);
    expect(c.context!.call).toBe(102);
    // dag as of call 102: 191 turns under its condensed summary, 16 sent; its context through the
    // session's fitted context model over its 3,743 view tokens: 30,210, beside Claude Code's recorded 33,960.
    const col = (k: string) => c.context!.columns.find((x) => x.key === k)!;
    expect([col('v3').counts.summarized, col('v3').counts.verbatim, col('v3').contextTokens]).toEqual([191, 16, 30210]);
    expect(col('source').contextTokens).toBe(33960);
    // Facts at call 102: as in compare.test.ts (dag 59, rolling 95, Claude Code 41 of the 101 facts of turns 0-206).
    const f = c.context!.facts;
    expect(f.columnKeys).toEqual(['v1', 'v2', 'v3', 'source']);
    expect([f.total, f.kept[0], f.kept[1], f.kept[3]]).toEqual([101, 59, 95, 41]);
    // The as-of-call-102 dag pass summarized 0-190 into one hand-off and keeps 41 of the ledger's 101
    // (the fact-list summarizer kept all 101 by construction); 72 facts differ among the four.
    expect([f.kept[2], f.differing]).toEqual([41, 72]);

    const md = await cli(['compare', '1', '--variants', '1,2', '--call', '120', '--markdown']);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('| column | status | model calls | input tokens | cache read | cost | peak context | compactions |');
    expect(md.stdout).toContain('| #1 dag | replayed | 152 | 12890616 | 12608426 | $10.0981 | 147739 | 1 | – |');
    // No compaction could not have run on Opus 4.6's 200k window: the report says so beside its cost.
    expect(md.stdout).toContain('| no compaction | baseline | 152 | 21531500 | 21253930 | $14.3745 | 204440 | 0 | infeasible: exceeds 200,000 tokens at call 138 |');
    // The source's record: its 152 calls, Claude Code's own compaction call and its subagent's 3 calls.
    expect(md.stdout).toContain("| source's own compactions | baseline | 156 | 15366869 | 14972534 | $12.2257 | 166759 | 1 | – |");
    expect(md.stdout).toContain('## Context at call 120');
    expect(md.stdout).toContain('### Facts: which survive in one and not the other');
    expect(md.stdout).toContain('| fact | category | salience | #1 dag | #2 rolling | source\'s own compactions |');
    // At call 120 Claude Code's context also holds the turns after its boundary (207 on) verbatim, which repeat 13 more facts (41 → 54).
    expect(md.stdout).toContain("101 facts in the 207 turns some column compacted; kept: #1 dag 63, #2 rolling 95, source's own compactions 54; 52 differ.");
    expect(md.stdout).toContain('| `lib/spotter_web/components/layouts/root.html.heex` (read) | path | 2.97 | ✓ | ✓ | ✗ |');
    const usage = await cli(['compare', '1', '--json']);
    expect(usage.code).toBe(2);
  });
});
