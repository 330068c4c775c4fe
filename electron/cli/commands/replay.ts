/**
 * `replay <session> --strategy S [...]`: walks the session model call by model call under
 * the variant (the strategy's trigger checked before every call, its pass fired where it
 * says so), prices every call with prompt caching and prints
 * {variantId, runId, events, totals, baselines: {none: {totals}, source: {events, totals}}}.
 * Every figure carries its cost per model, its unpriced calls and whether it exceeds the
 * context window of its calls' models ("infeasible: exceeds N tokens at call K"), in the
 * text and the JSON alike; the source's recorded total lists its main session, its own
 * compaction calls and its subagents line by line, and its compactions simulated through the
 * usage model give the error bar printed next to every simulated figure.
 * `--timeline` adds the per-call columns. Ctrl-C cancels; nothing is written then.
 * `--check` writes nothing: it runs the fast replay and the reference replay (the design's
 * rule as plain loops, shared/replay/reference/) and says whether they agree (exit 0) or
 * where they first differ (exit 1).
 */
import { runReplay } from '../../engine/replay.js';
import { CliError, intOption, requireSession, type CliCommand, type CommandContext } from '../framework.js';
import { figureFlags } from '../../../shared/cost/figures.js';
import { asCliError, clampedParamsArg, concurrencyArg, ProgressBar, strategyArg, STRATEGY_OPTIONS, SUMMARIZER_OPTIONS, summarizerArg } from './engine-args.js';
import type { ReplayTimeline } from '../../../shared/contract.js';
import { checkSessionReplay } from '../../engine/replay-check.js';
import { describeMeasure } from '../../../shared/usage/measure.js';
import type { CheckResult } from '../../../shared/replay/check.js';

/** The --check report: agreement, the firing calls of each side, and the first difference. */
function checkReport(r: CheckResult) {
  return {
    agree: r.agree,
    strategy: r.strategy,
    calls: r.calls,
    measure: r.measure,
    summaries: 'stand-ins of their target size (the projection): the check is of the rule, not of a summarizer',
    firings: { fast: r.fast.firings.length, reference: r.reference.firings.length },
    firingCalls: { fast: r.fast.firings.map((f) => f.call), reference: r.reference.firings.map((f) => f.call) },
    ms: { fast: r.fast.ms, reference: r.reference.ms },
    firstDisagreement: r.firstDisagreement,
    referenceFirings: r.reference.firings,
  };
}

/** The CLI's --json document of a replay (variantId, runId, events, totals, baselines; `calls` with --timeline). */
export function replayReport(t: ReplayTimeline, withCalls: boolean) {
  return {
    variantId: t.variantId,
    runId: t.runId,
    strategy: t.strategy,
    contextModel: t.contextModel,
    pricing: t.pricing,
    windows: t.windows ?? null,
    events: t.events,
    totals: t.totals,
    baselines: {
      none: { totals: t.baselines.none.totals, overflowAtCall: t.baselines.none.overflowAtCall, contextWindow: t.baselines.none.contextWindow },
      source: {
        events: t.baselines.source.events,
        totals: t.baselines.source.totals,
        lines: t.baselines.source.lines ?? null,
        includesSubagents: t.baselines.source.includesSubagents ?? null,
        simulated: t.baselines.source.simulated ?? null,
        placeholderOutputCalls: t.baselines.source.placeholderOutputCalls ?? null,
      },
    },
    ...(withCalls ? { calls: t.calls, callModel: t.callModel ?? null } : {}),
  };
}

export const command: CliCommand = {
  name: 'replay',
  summary: 'Replay a session call by call under a variant: when it fires, what the model saw, what it cost with prompt caching',
  usage: 'replay <session> --strategy S [--set KEY=VALUE ...] [--summarizer extractive|openai] [--base-url U] [--model M] [--overhead N] [--commit-delay N] [--context-window N] [--no-subagents] [--timeline] [--check] [--db PATH] [--json]',
  description:
    "Before every model call the strategy's trigger is evaluated on what the model would receive then (summaries so far + uncovered turns + overhead); when it fires its pass runs there. Overhead comes from the session's reported usage (a + b × transcript) where it has any, else --overhead. Each call is priced at the model the source used for it (summarizer calls at the summarizer's), with the session's cache lifetime; calls at a model no price covers are counted as unpriced, never $0. Each series is checked against its models' context windows (the built-in table, Settings, or --context-window), never tokenBudget. Two baselines: no compaction, and the source tool's own record — its main session, its own compaction calls and (by default) its subagents — with its compactions simulated beside it. A second replay of the same variant makes no summarizer call (summary cache).",
  options: {
    ...STRATEGY_OPTIONS,
    ...SUMMARIZER_OPTIONS,
    concurrency: { type: 'string', valueName: 'N', description: 'summarizer calls in flight at once (default 4)' },
    overhead: { type: 'string', valueName: 'N', description: 'tokens each call carries beyond the transcript when the session reports no usage (default 0)' },
    'commit-delay': { type: 'string', valueName: 'N', description: 'model calls after which a background pass commits (two-line; default 1)' },
    'context-window': { type: 'string', valueName: 'N', description: "this session's context window in tokens, whatever the model (default: each call's model's, see `prices`)" },
    'no-subagents': { type: 'boolean', description: "leave the session's subagents out of the source's recorded total (default: counted)" },
    timeline: { type: 'boolean', description: 'include the per-call columns (and each call\'s model) in the JSON' },
    check: { type: 'boolean', description: 'write nothing; run the fast replay and the reference replay (the design rule as plain loops) and report whether they agree: exit 0 when they do, 1 when they do not' },
  },
  minPositionals: 1,
  maxPositionals: 1,
  async run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const bar = new ProgressBar(ctx.stderr, { jsonMode: ctx.jsonMode, stdoutIsTTY: ctx.stdout.isTTY });
    const strategy = strategyArg(ctx);
    const { params, notes } = clampedParamsArg(ctx, strategy);
    if (ctx.options.check === true) {
      let r: CheckResult;
      try {
        r = await checkSessionReplay(db, { sessionId: session.id, strategy, params, overheadTokens: intOption(ctx, 'overhead'), commitDelayCalls: intOption(ctx, 'commit-delay') });
      } catch (e) {
        throw asCliError(e);
      }
      if (ctx.jsonMode) ctx.json(checkReport(r));
      else {
        ctx.out(`Check of ${strategy} over ${r.calls} model calls (thresholds on ${describeMeasure(r.measure)}; summaries as stand-ins of their target size):`);
        ctx.out(`  fast replay: ${r.fast.firings.length} firing(s) at calls ${r.fast.firings.map((f) => f.call).join(', ') || '-'} (${r.fast.ms} ms)`);
        ctx.out(`  reference:   ${r.reference.firings.length} firing(s) at calls ${r.reference.firings.map((f) => f.call).join(', ') || '-'} (${r.reference.ms} ms)`);
        const d = r.firstDisagreement;
        ctx.out(d ? `  DISAGREE at call ${d.call} (${d.what}): fast ${JSON.stringify(d.fast)}, reference ${JSON.stringify(d.reference)}` : '  agree: the same firings, spans, figures, views and contexts at every call');
      }
      return r.agree ? 0 : 1;
    }
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
        contextWindow: intOption(ctx, 'context-window') ?? null,
        includeSubagents: ctx.options['no-subagents'] !== true,
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
    else printReplay(ctx, t);
    return 0;
  },
};

const usd = (x: number) => `$${x.toFixed(4)}`;
const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

/** The text report: every figure with its flags, its models, and the usage model's error bar beside the simulated ones. */
function printReplay(ctx: CommandContext, t: ReplayTimeline): void {
  const models = t.pricing.models ?? [t.pricing.model];
  const windows = (t.windows ?? []).map((w) => `${w.model} ${w.tokens}${w.from === 'table' ? '' : ` (${w.from})`}`).join(', ');
  ctx.out(`Replay ${t.runId} of variant ${t.variantId} (${t.strategy}) over ${t.totals.modelCalls} model calls; context = ${Math.round(t.contextModel.a)} + ${t.contextModel.b.toFixed(3)} × transcript (${t.contextModel.source}); each call priced at its own model (${models.join(', ')}), ${t.pricing.ttl} cache; context windows: ${windows || t.baselines.none.contextWindow}`);
  for (const e of t.events) ctx.out(`  call ${e.call} (turn ${e.turn}) ${e.kind}: ${e.contextBefore} -> ${e.contextAfter} tokens, ${e.spans} span(s), ${e.summaryIds.length} summaries, depth ${e.maxDepth} — ${e.reason}`);
  const src = t.baselines.source;
  const error = src.simulated?.usageModelError ?? null;
  const bar = error !== null ? `  (usage model error ${pct(error)})` : '';
  const row = (name: string, x: ReplayTimeline['totals'], simulated: boolean) => {
    const flags = figureFlags(x);
    ctx.out(`  ${name.padEnd(18)} cost ${usd(x.costUsd)}${simulated ? bar : ''}  input ${x.inputTokens}  cache read ${x.cacheReadTokens}  cache write ${x.cacheWriteTokens}  peak ${x.peakContext}  firings ${x.firings}${flags ? `  — ${flags}` : ''}`);
    const lines = x.byModel ?? [];
    if (lines.length > 1 || lines.some((l) => !l.known)) for (const l of lines) ctx.out(`    ${l.model}: ${l.calls} calls, ${l.known ? usd(l.costUsd) : 'unpriced'}`);
  };
  row(t.strategy, t.totals, true);
  row('no compaction', t.baselines.none.totals, true);
  if (src.simulated) row('source, simulated', src.simulated.totals, false);
  row('source, recorded', src.totals, false);
  for (const l of src.lines ?? []) {
    const marks = [l.placeholderOutputCalls > 0 ? `${l.placeholderOutputCalls} with a placeholder output figure (a floor)` : '', l.placeholderInputCalls > 0 ? `${l.placeholderInputCalls} with placeholder input, not priced` : ''].filter(Boolean).join(', ');
    ctx.out(`    ${l.kind.padEnd(10)} ${usd(l.costUsd)}  ${l.calls} calls  ${l.label}${marks ? `  (${marks})` : ''}`);
  }
  ctx.out(`  source recorded = main session + the source tool's compaction calls${src.includesSubagents === false ? ' (subagents left out: --no-subagents)' : ' + subagents (leave them out with --no-subagents)'}`);
  if (src.simulated && error === null) ctx.out('  usage model error: not measured (the source never compacted or is unpriced: its simulation is its record)');
  if (src.simulated && error !== null) ctx.out(`  usage model error: simulated source ${usd(src.simulated.totals.costUsd)} vs recorded ${usd(src.simulated.recordedUsd)} (main + compaction calls) = ${pct(error)}: the error bar of every simulated figure`);
}
