/**
 * Replay benchmark (issue 7): for each strategy, a full extractive live replay of a
 * generated session (default 100,000 turns) against today's one-shot pass of the same
 * variant, as a ratio measured in the same run (goal <= 2x); and the projected timeline
 * the window redraws on every slider frame (`replayPreview.<strategy>.medianMs`, goal
 * <= 16 ms at 100,000 turns), and `frameMedianMs`: that projection with the events and
 * priced timeline the window builds from it (what a settled slider move waits for).
 *
 * The pass and the replay run on two copies of one imported database, so neither gets
 * the other's summaries from the summary cache. A run longer than `--budget-ms` (default
 * 120,000) is stopped and reported as such instead of holding the benchmark for hours.
 * `npx tsx bench/replay.ts [--turns N] [--strategies a,b] [--preview-only] [--runs K] [--json]` runs it
 * alone (`--preview-only`: only the projected-timeline medians, K runs each after two warm-up runs, default 9).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../electron/store/db.js';
import { importText } from '../electron/importers/import.js';
import { runCompaction } from '../electron/engine/engine.js';
import { runReplay } from '../electron/engine/replay.js';
import { listTurnMetas } from '../electron/store/turns.js';
import { projectTimeline } from '../shared/replay/projection.js';
import { buildTimeline, firingEvents, replayInputs } from '../shared/replay/timeline.js';
import { prepareStrategy } from '../shared/strategies/index.js';
import { STRATEGIES, type StrategyName } from '../shared/strategies/types.js';
import { syntheticTranscriptJsonl } from './pass.js';

export interface ReplayBenchRow {
  passMs: number;
  replayMs: number | null;
  /** replayMs / passMs; null when the replay hit the budget. */
  ratioToPass: number | null;
  firings: number;
  maxDepth: number;
  status: string;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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
    const preview: Record<string, { medianMs: number | null; cpuMedianMs: number | null; frameMedianMs: number | null; firstMs: number[]; runs: number; firings: number; status: string }> = {};
    // What the window's Timeline builds from a projection (renderer/plan/use-timeline.ts), on the session as imported (no usage).
    const source = { sessionId: session.id, metas, usage: [], fit: null, external: [] };
    for (const strategy of opts.strategies ?? STRATEGIES) {
      process.stderr.write(`bench: replay ${strategy}...\n`);
      if (!opts.previewOnly) {
        const t0 = performance.now();
        await runCompaction(a, { sessionId: session.id, strategy, params: {}, force: true });
        const passMs = performance.now() - t0;
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
          status: done ? 'completed' : `stopped after ${budgetMs} ms (${r.status})`,
        };
      }
      // The window's projection: same loop, projected summaries, no store.
      const prepared = prepareStrategy(strategy, {});
      const times: number[] = [];
      // CPU time of the process (every thread, GC helpers included) beside the wall time: on a
      // shared machine the wall median also counts the time other processes held the cores.
      const cpu: number[] = [];
      let firings = 0;
      let status = 'completed';
      // The window re-projects on every slider frame of a session it has open: the steady state
      // is what a frame waits for. The first two runs (JIT warm-up, the session's index and call
      // columns built) are timed apart (`firstMs`) and left out of the median.
      const first: number[] = [];
      for (let i = 0; i < 2; i++) {
        const s = performance.now();
        await projectTimeline({ prepared, metas, model: { a: 0, b: 1 } });
        first.push(Math.round((performance.now() - s) * 10) / 10);
      }
      // The whole frame: the projection, then its events and priced timeline as the window builds them.
      const frames: number[] = [];
      for (let i = 0; i < (opts.previewRuns ?? 9); i++) {
        const deadline = performance.now() + budgetMs / 4;
        const signal = { get aborted() { return performance.now() > deadline; }, addEventListener() {}, removeEventListener() {} };
        const s = performance.now();
        const c0 = process.cpuUsage();
        try {
          const p = await projectTimeline({ prepared, metas, model: { a: 0, b: 1 }, signal });
          firings = p.firings.length;
          times.push(performance.now() - s);
          const c = process.cpuUsage(c0);
          cpu.push((c.user + c.system) / 1000);
          const f0 = performance.now();
          const inputs = replayInputs(source);
          const live = await projectTimeline({ prepared, metas, model: inputs.model, calls: inputs.calls, signal });
          buildTimeline({ source, inputs, prepared, live, events: firingEvents(live.firings, { lazy: true }), runId: 0, variantId: 0, status: 'completed' });
          frames.push(performance.now() - f0);
        } catch {
          status = `stopped after ${budgetMs / 4} ms`;
          break;
        }
      }
      const previewDone = times.length > 0 && status === 'completed';
      preview[strategy] = { medianMs: previewDone ? Math.round(median(times) * 10) / 10 : null, cpuMedianMs: previewDone ? Math.round(median(cpu) * 10) / 10 : null, frameMedianMs: previewDone ? Math.round(median(frames) * 10) / 10 : null, firstMs: first, runs: times.length, firings, status };
    }
    a.close();
    b.close();
    return { turns: session.turns, sessionTokens: session.tokens, replay, replayPreview: preview };
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
