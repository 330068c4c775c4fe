/**
 * `compact <session> --strategy S [...]`: runs one pass through the engine and prints
 * {"variantId","runId","status","stats"} (stats always include summarizerCalls,
 * cacheHits, tokensBefore and tokensAfter, plus the strategy's own). Ctrl-C cancels the
 * pass; the run is then recorded as cancelled and nothing partial is written.
 */
import { runCompaction } from '../../engine/engine.js';
import { CliError, intOption, requireSession, type CliCommand } from '../framework.js';
import { asCliError, clampedParamsArg, concurrencyArg, ProgressBar, strategyArg, STRATEGY_OPTIONS, SUMMARIZER_OPTIONS, summarizerArg } from './engine-args.js';

export const command: CliCommand = {
  name: 'compact',
  summary: 'Run a compaction pass and record it as a run of its variant',
  usage: 'compact <session> --strategy S [--set KEY=VALUE ...] [--summarizer extractive|openai] [--base-url U] [--model M] [--concurrency N] [--force] [--as-of-call N] [--db PATH] [--json]',
  description:
    'A variant is strategy + parameters + summarizer + prompt version; it is created on first use and keeps its summaries across runs. Without --force a pass runs only when the strategy says the session needs it. A re-run of an unchanged variant makes no summarizer call (summary cache). --as-of-call N compacts the session as it stood at model call N (the pass sees only the turns before that call), once, as a variant of its own: set a strategy beside the source tool\'s own compaction at the same point (`compare`).',
  options: {
    ...STRATEGY_OPTIONS,
    ...SUMMARIZER_OPTIONS,
    concurrency: { type: 'string', valueName: 'N', description: 'summarizer calls in flight at once (default 4)' },
    force: { type: 'boolean', description: "run even when the strategy's trigger says no compaction is needed" },
    'as-of-call': { type: 'string', valueName: 'N', description: 'a one-shot pass over the turns before model call N (0-based), recorded as its own variant (params.asOfCall)' },
  },
  minPositionals: 1,
  maxPositionals: 1,
  async run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const strategy = strategyArg(ctx);
    const { params, notes } = clampedParamsArg(ctx, strategy);
    const summarizer = summarizerArg(ctx);
    const concurrency = concurrencyArg(ctx);
    const asOf = intOption(ctx, 'as-of-call');
    const bar = new ProgressBar(ctx.stderr, { jsonMode: ctx.jsonMode, stdoutIsTTY: ctx.stdout.isTTY });
    let result;
    try {
      result = await runCompaction(db, {
        sessionId: session.id,
        strategy,
        params,
        summarizer,
        concurrency,
        force: ctx.options.force === true,
        ...(asOf === undefined ? {} : { asOfCall: asOf }),
        signal: ctx.signal,
        onProgress: (p) => bar.update(p),
      });
    } catch (e) {
      throw asCliError(e);
    } finally {
      bar.finish();
    }
    if (ctx.jsonMode) ctx.json({ variantId: result.variantId, runId: result.runId, status: result.status, stats: result.stats, ...(result.error ? { error: result.error } : {}), ...(notes.length > 0 ? { paramNotes: notes } : {}) });
    else {
      const s = result.stats;
      ctx.out(`Run ${result.runId} of variant ${result.variantId} (${strategy}): ${result.status}${typeof s.reason === 'string' ? ` — ${s.reason}` : ''}`);
      ctx.out(`  tokens the model sees: ${s.tokensBefore} -> ${s.tokensAfter}`);
      ctx.out(`  summarizer calls: ${s.summarizerCalls}, cache hits: ${s.cacheHits}${s.costUsd ? `, cost $${s.costUsd}` : ''}`);
      const own = Object.entries(s).filter(([k]) => !['reason', 'tokensBefore', 'tokensAfter', 'summarizerCalls', 'cacheHits', 'costUsd', 'tokensIn', 'tokensOut', 'summariesRequested', 'durationMs'].includes(k));
      for (const [k, v] of own) ctx.out(`  ${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
    }
    switch (result.status) {
      case 'completed':
      case 'skipped':
        return 0;
      case 'cancelled':
        throw new CliError(`run ${result.runId} cancelled: nothing was written`, 'cancelled', 130);
      case 'failed':
        throw new CliError(`run ${result.runId} failed: ${result.error}`, 'run_failed', 1);
      default: {
        const _exhaustive: never = result.status;
        return _exhaustive;
      }
    }
  },
};
