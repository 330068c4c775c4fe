/**
 * Replay benchmark (issue 7): for each strategy, a full extractive live replay of a
 * generated session (default 100,000 turns) against today's one-shot pass of the same
 * variant, as a ratio measured in the same run (goal <= 2x); and the projected timeline
 * the window redraws on every slider frame (`replayPreview.<strategy>.medianMs`, goal
 * <= 16 ms at 100,000 turns), and `frameMedianMs`: that projection with the events and
 * priced timeline the window builds from it (what a settled slider move waits for). The
 * projections are measured in a child process holding only the session's turn metadata,
 * as the window's renderer does (bench/replay-preview.ts).
 *
 * The pass and the replay run on two copies of one imported database, so neither gets
 * the other's summaries from the summary cache, and each from a settled heap (a full
 * collection first, not timed): the replay, which runs right after the pass, would otherwise
 * pay for collecting the pass's garbage, and the pass for the previous strategy's. A run
 * longer than `--budget-ms` (default 120,000) is stopped and reported as such instead of
 * holding the benchmark for hours.
 * `npx tsx bench/replay.ts [--turns N] [--strategies a,b] [--preview-only] [--runs K] [--json]` runs it
 * alone (`--preview-only`: only the projected-timeline medians, K runs each after PREVIEW_WARMUP warm-up runs, default 15).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openDatabase } from '../electron/store/db.js';
import { importText } from '../electron/importers/import.js';
import { runCompaction } from '../electron/engine/engine.js';
import { runReplay } from '../electron/engine/replay.js';
import { listTurnMetas } from '../electron/store/turns.js';
import { STRATEGIES, type StrategyName } from '../shared/strategies/types.js';
import { syntheticTranscriptJsonl } from './pass.js';
import { previewInChild } from './replay-preview.js';

export interface ReplayBenchRow {
  passMs: number;
  replayMs: number | null;
  /** replayMs / passMs; null when the replay hit the budget. */
  ratioToPass: number | null;
  firings: number;
  maxDepth: number;
  /**
   * Turns the summaries read directly (each summary's own turns, summaries it condenses not
   * counted), by the pass and by the replay: the summarizing work each did. A replay fires
   * again and again as the session grows and can summarize many more turns than the one pass
   * at the end (rolling's pass folds half the session, its replay nearly all of it).
   */
  passTurnsSummarized: number;
  replayTurnsSummarized: number | null;
  status: string;
}

/** Turns read directly by the summaries of a pass run (`pass`) or of a replay run. */
function turnsSummarized(db: ReturnType<typeof openDatabase>, runId: number, kind: 'pass' | 'replay'): number {
  const column = kind === 'pass' ? 'run_id' : 'replay_run_id';
  const row = db.prepare(`SELECT COUNT(*) AS n FROM summary_sources ss JOIN summaries s ON s.id = ss.summary_id WHERE s.${column} = ? AND ss.turn_id IS NOT NULL`).get(runId) as { n: number };
  return row.n;
}

/** A full garbage collection (not timed), so the run timed next pays only for its own garbage. */
function settleHeap(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

export async function benchReplay(opts: { turns: number; budgetMs?: number; previewRuns?: number; strategies?: readonly StrategyName[]; previewOnly?: boolean }): Promise<Record<string, unknown>> {
  const budgetMs = opts.budgetMs ?? 120_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-replay-'));
  const fileA = path.join(dir, 'pass.db');
  const fileB = path.join(dir, 'replay.db');
  try {
    const seed = openDatabase(fileA);
    const session = importText(seed, 'bench-replay.jsonl', syntheticTranscriptJsonl(opts.turns), { format: 'openai' }).sessions[0];
    const metas = listTurnMetas(seed, session.id);
    seed.close();
    fs.copyFileSync(fileA, fileB);
    const a = openDatabase(fileA);
    const b = openDatabase(fileB);
    const replay: Record<string, ReplayBenchRow> = {};
    for (const strategy of opts.strategies ?? STRATEGIES) {
      if (!opts.previewOnly) {
        process.stderr.write(`bench: replay ${strategy}...\n`);
        settleHeap();
        const t0 = performance.now();
        const pass = await runCompaction(a, { sessionId: session.id, strategy, params: {}, force: true });
        const passMs = performance.now() - t0;
        settleHeap();
        const t1 = performance.now();
        const r = await runReplay(b, { sessionId: session.id, strategy, signal: AbortSignal.timeout(budgetMs) });
        const replayMs = performance.now() - t1;
        const done = r.status === 'completed';
        replay[strategy] = {
          passMs: Math.round(passMs),
          replayMs: done ? Math.round(replayMs) : null,
          ratioToPass: done ? Math.round((replayMs / passMs) * 100) / 100 : null,
          firings: r.timeline?.totals.firings ?? 0,
          maxDepth: r.timeline?.totals.maxDepth ?? 0,
          passTurnsSummarized: turnsSummarized(a, pass.runId, 'pass'),
          replayTurnsSummarized: done ? turnsSummarized(b, r.runId, 'replay') : null,
          status: done ? 'completed' : `stopped after ${budgetMs} ms (${r.status})`,
        };
      }
    }
    a.close();
    b.close();
    // The window's projection, in a process that holds only the metas (bench/replay-preview.ts).
    process.stderr.write('bench: projected timelines...\n');
    const replayPreview = await previewInChild({ metas, strategies: opts.strategies ?? STRATEGIES, runs: opts.previewRuns ?? 15, budgetMs: budgetMs / 4 });
    return { turns: session.turns, sessionTokens: session.tokens, replay, replayPreview };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<void> {
  const i = argv.indexOf('--turns');
  const only = argv.indexOf('--strategies');
  const r = await benchReplay({ turns: i >= 0 ? Number(argv[i + 1]) : 100_000, strategies: only >= 0 ? (argv[only + 1].split(',') as StrategyName[]) : undefined, previewOnly: argv.includes('--preview-only'), previewRuns: argv.includes('--runs') ? Number(argv[argv.indexOf('--runs') + 1]) : undefined });
  process.stdout.write(`${JSON.stringify(r, null, argv.includes('--json') ? 0 : 2)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
