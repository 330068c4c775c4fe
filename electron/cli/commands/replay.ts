/**
 * `replay <session> --strategy S [...]`: walks the session model call by model call under
 * the variant (the strategy's trigger checked before every call, its pass fired where it
 * says so), prices every call with prompt caching and prints
 * {variantId, runId, events, totals, baselines: {none: {totals}, source: {events, totals}}}.
 * `--timeline` adds the per-call columns. Ctrl-C cancels; nothing is written then.
 */
import { runReplay } from '../../engine/replay.js';
import { CliError, intOption, requireSession, type CliCommand } from '../framework.js';
import { asCliError, clampedParamsArg, concurrencyArg, ProgressBar, strategyArg, STRATEGY_OPTIONS, SUMMARIZER_OPTIONS, summarizerArg } from './engine-args.js';
import type { ReplayTimeline } from '../../../shared/contract.js';

/** The CLI's --json document of a replay (the shape; `calls` with --timeline). */
export function replayReport(t: ReplayTimeline, withCalls: boolean) {
  return {
    variantId: t.variantId,
    runId: t.runId,
    strategy: t.strategy,
    contextModel: t.contextModel,
    pricing: t.pricing,
    events: t.events,
    totals: t.totals,
    baselines: { none: { totals: t.baselines.none.totals, overflowAtCall: t.baselines.none.overflowAtCall, contextWindow: t.baselines.none.contextWindow }, source: { events: t.baselines.source.events, totals: t.baselines.source.totals } },
    ...(withCalls ? { calls: t.calls } : {}),
  };
}

export const command: CliCommand = {
  name: 'replay',
  summary: 'Replay a session call by call under a variant: when it fires, what the model saw, what it cost with prompt caching',
  usage: 'replay <session> --strategy S [--set KEY=VALUE ...] [--summarizer extractive|openai] [--base-url U] [--model M] [--overhead N] [--commit-delay N] [--timeline] [--db PATH] [--json]',
  description:
    "Before every model call the strategy's trigger is evaluated on what the model would receive then (summaries so far + uncovered turns + overhead); when it fires its pass runs there. Overhead comes from the session's reported usage (a + b × transcript) where it has any, else --overhead. Costs use the session's model and cache lifetime. Two baselines: no compaction, and the source tool's own compactions with its recorded usage. A second replay of the same variant makes no summarizer call (summary cache).",
  options: {
    ...STRATEGY_OPTIONS,
    ...SUMMARIZER_OPTIONS,
    concurrency: { type: 'string', valueName: 'N', description: 'summarizer calls in flight at once (default 4)' },
    overhead: { type: 'string', valueName: 'N', description: 'tokens each call carries beyond the transcript when the session reports no usage (default 0)' },
    'commit-delay': { type: 'string', valueName: 'N', description: 'model calls after which a background pass commits (two-line; default 1)' },
    timeline: { type: 'boolean', description: 'include the per-call columns in the JSON' },
  },
  minPositionals: 1,
  maxPositionals: 1,
  async run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const bar = new ProgressBar(ctx.stderr, { jsonMode: ctx.jsonMode, stdoutIsTTY: ctx.stdout.isTTY });
    const strategy = strategyArg(ctx);
    const { params, notes } = clampedParamsArg(ctx, strategy);
    let result;
    try {
      result = await runReplay(db, {
        sessionId: session.id,
        strategy,
        params,
        summarizer: summarizerArg(ctx),
        concurrency: concurrencyArg(ctx),
        overheadTokens: intOption(ctx, 'overhead'),
        commitDelayCalls: intOption(ctx, 'commit-delay'),
        signal: ctx.signal,
        onProgress: (p) => bar.update(p),
      });
    } catch (e) {
      throw asCliError(e);
    } finally {
      bar.finish();
    }
    if (result.status === 'cancelled') throw new CliError(`replay ${result.runId} cancelled: nothing was written`, 'cancelled', 130);
    if (result.status !== 'completed' || !result.timeline) throw new CliError(`replay ${result.runId} failed: ${result.error}`, 'run_failed', 1);
    const t = result.timeline;
    if (ctx.jsonMode) ctx.json({ ...replayReport(t, ctx.options.timeline === true), ...(notes.length > 0 ? { paramNotes: notes } : {}) });
    else {
      const usd = (x: number) => `$${x.toFixed(4)}`;
      ctx.out(`Replay ${t.runId} of variant ${t.variantId} (${t.strategy}) over ${t.totals.modelCalls} model calls; context = ${Math.round(t.contextModel.a)} + ${t.contextModel.b.toFixed(3)} × transcript (${t.contextModel.source}); priced as ${t.pricing.model}${t.pricing.known ? '' : ' (unlisted: 0)'}, ${t.pricing.ttl} cache`);
      for (const e of t.events) ctx.out(`  call ${e.call} (turn ${e.turn}) ${e.kind}: ${e.contextBefore} -> ${e.contextAfter} tokens, ${e.spans} span(s), ${e.summaryIds.length} summaries, depth ${e.maxDepth} — ${e.reason}`);
      const row = (name: string, x: ReplayTimeline['totals']) => ctx.out(`  ${name.padEnd(14)} cost ${usd(x.costUsd)}  input ${x.inputTokens}  cache read ${x.cacheReadTokens}  cache write ${x.cacheWriteTokens}  peak ${x.peakContext}  firings ${x.firings}`);
      row(t.strategy, t.totals);
      row('no compaction', t.baselines.none.totals);
      row('source tool', t.baselines.source.totals);
    }
    return 0;
  },
};
