/**
 * Replay benchmark: for each strategy, a full extractive live replay of a
 * generated session (default 100,000 turns) against today's one-shot pass of the same
 * variant, as a ratio measured in the same run (goal <= 2x); and the projected timeline
 * the window redraws on every slider frame (`replayPreview.<strategy>.medianMs`, goal
 * <= 16 ms at 100,000 turns), and `frameMedianMs`: that projection with the events and
 * priced timeline the window builds from it (what a settled slider move waits for). The
 * projections are measured in a child process holding only the session's turn metadata,
 * as the window's renderer does (bench/replay-preview.ts).
 *
 * Each strategy is timed in `pairs` pairs (default 3): a pass, then a replay, each on a fresh
 * copy of one imported database (so neither gets summaries from the summary cache) and from a
 * settled heap (a full collection first, not timed): the replay, which runs right after the
 * pass, would otherwise pay for collecting the pass's garbage, and the pass for the previous
 * strategy's. The ratio is the median of the pairs' ratios: this 2-core machine changes speed
 * by up to 2x for seconds at a time, and one pair's ratio moved by 10% from run to run (rolling:
 * 1.86-2.16x within minutes). A run longer than `--budget-ms` (default 120,000) is stopped and
 * reported as such instead of holding the benchmark for hours.
 * `npx tsx bench/replay.ts [--turns N] [--strategies a,b] [--pairs P] [--preview-only] [--runs K] [--json]` runs it
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
  /** Medians over the pairs. */
  passMs: number;
  replayMs: number | null;
  /** The median of the pairs' replay / pass ratios; null when a replay hit the budget. */
  ratioToPass: number | null;
  /** Each pair's ratio, in the order run. */
  ratios: number[];
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

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function benchReplay(opts: { turns: number; budgetMs?: number; previewRuns?: number; pairs?: number; strategies?: readonly StrategyName[]; previewOnly?: boolean }): Promise<Record<string, unknown>> {
  const budgetMs = opts.budgetMs ?? 120_000;
  const pairs = Math.max(1, opts.pairs ?? 3);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-replay-'));
  const seedFile = path.join(dir, 'seed.db');
  try {
    const seed = openDatabase(seedFile);
    const session = importText(seed, 'bench-replay.jsonl', syntheticTranscriptJsonl(opts.turns), { format: 'openai' }).sessions[0];
    const metas = listTurnMetas(seed, session.id);
    seed.close();
    // A fresh copy of the imported database: no summary, no cache entry.
    const fresh = (name: string) => {
      const file = path.join(dir, name);
      fs.copyFileSync(seedFile, file);
      return openDatabase(file);
    };
    const replay: Record<string, ReplayBenchRow> = {};
    for (const strategy of opts.previewOnly ? [] : (opts.strategies ?? STRATEGIES)) {
      const passMs: number[] = [];
      const replayMs: number[] = [];
      const ratios: number[] = [];
      let row: Omit<ReplayBenchRow, 'passMs' | 'replayMs' | 'ratioToPass' | 'ratios'> | null = null;
      for (let p = 0; p < pairs; p++) {
        process.stderr.write(`bench: replay ${strategy} (pair ${p + 1} of ${pairs})...\n`);
        const a = fresh('pass.db');
        const b = fresh('replay.db');
        try {
          settleHeap();
          const t0 = performance.now();
          const pass = await runCompaction(a, { sessionId: session.id, strategy, params: {}, force: true });
          passMs.push(performance.now() - t0);
          settleHeap();
          const t1 = performance.now();
          const r = await runReplay(b, { sessionId: session.id, strategy, signal: AbortSignal.timeout(budgetMs) });
          const done = r.status === 'completed';
          if (done) {
            replayMs.push(performance.now() - t1);
            ratios.push(Math.round((replayMs[replayMs.length - 1] / passMs[passMs.length - 1]) * 100) / 100);
          }
          row = {
            firings: r.timeline?.totals.firings ?? 0,
            maxDepth: r.timeline?.totals.maxDepth ?? 0,
            passTurnsSummarized: turnsSummarized(a, pass.runId, 'pass'),
            replayTurnsSummarized: done ? turnsSummarized(b, r.runId, 'replay') : null,
            status: done ? 'completed' : `stopped after ${budgetMs} ms (${r.status})`,
          };
        } finally {
          a.close();
          b.close();
        }
        if (row.status !== 'completed') break;
      }
      const done = row!.status === 'completed';
      replay[strategy] = {
        passMs: Math.round(median(passMs)),
        replayMs: done ? Math.round(median(replayMs)) : null,
        ratioToPass: done ? Math.round(median(ratios) * 100) / 100 : null,
        ratios,
        ...row!,
      };
    }
    // The window's projection, in a process that holds only the metas (bench/replay-preview.ts).
    process.stderr.write('bench: projected timelines...\n');
    const replayPreview = await previewInChild({ metas, strategies: opts.strategies ?? STRATEGIES, runs: opts.previewRuns ?? 15, budgetMs: budgetMs / 4 });
    return { turns: session.turns, sessionTokens: session.tokens, pairs, replay, replayPreview };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<void> {
  const i = argv.indexOf('--turns');
  const only = argv.indexOf('--strategies');
  const numberAfter = (flag: string) => (argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : undefined);
  const r = await benchReplay({ turns: i >= 0 ? Number(argv[i + 1]) : 100_000, strategies: only >= 0 ? (argv[only + 1].split(',') as StrategyName[]) : undefined, previewOnly: argv.includes('--preview-only'), previewRuns: numberAfter('--runs'), pairs: numberAfter('--pairs') });
  process.stdout.write(`${JSON.stringify(r, null, argv.includes('--json') ? 0 : 2)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
