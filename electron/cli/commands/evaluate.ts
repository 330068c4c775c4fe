/**
 * `evaluate <session> --variant V [--at-call N] [--judge openai --base-url URL --model M]`:
 * probe evaluation of a variant's compaction and, beside it, of the source tool's own
 * (electron/engine/evaluate.ts). With a judge, each probe is asked of --model with the
 * compacted context and graded 0–5 by --judge-model (default --model); without one, the same
 * probes are graded offline by text presence — a weaker check, labelled so.
 */
import { evaluateVariant, type JudgeConfig } from '../../engine/evaluate.js';
import { getVariant } from '../../store/variants.js';
import { probeScoreLabel, type ProbeEvaluation } from '../../../shared/probes/types.js';
import { intOption, requireSession, stringOption, UsageError, type CliCommand } from '../framework.js';

function summaryOf(e: ProbeEvaluation) {
  const graded = e.results.filter((r) => r.score !== null);
  return { mode: e.mode, promptVersion: e.promptVersion, probes: e.results.length, graded: graded.length, meanScore: graded.length > 0 ? Math.round((graded.reduce((n, r) => n + r.score!, 0) / graded.length) * 100) / 100 : null };
}

export const command: CliCommand = {
  name: 'evaluate',
  summary: "Probe evaluation: questions about the span a variant's compaction replaced, answered from its compacted context and graded (or, offline, checked by text presence), beside the source tool's own compaction",
  usage: 'evaluate <session> --variant V [--at-call N] [--judge openai --base-url URL --model M [--judge-model J]] [--db PATH] [--json]',
  options: {
    variant: { type: 'string', valueName: 'V', description: 'the variant to evaluate (required)' },
    'at-call': { type: 'string', valueName: 'N', description: "the replay call to evaluate at (default: the replay's last firing; a pass variant is evaluated at the session's end)" },
    judge: { type: 'string', valueName: 'KIND', description: 'openai: answer and grade with an OpenAI-compatible model (key from $OPENAI_API_KEY); omitted: offline, graded by text presence (a weaker check)' },
    'base-url': { type: 'string', valueName: 'URL', description: 'the OpenAI-compatible server (with --judge openai)' },
    model: { type: 'string', valueName: 'M', description: 'the model that answers the probes (with --judge openai)' },
    'judge-model': { type: 'string', valueName: 'J', description: 'the model that grades (default: --model)' },
  },
  minPositionals: 1,
  maxPositionals: 1,
  async run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const variantArg = stringOption(ctx, 'variant');
    if (variantArg === undefined || !/^\d+$/.test(variantArg)) throw new UsageError('--variant V is required (a variant id)');
    const v = getVariant(db, Number(variantArg));
    if (!v || v.sessionId !== session.id) throw new UsageError(`variant ${variantArg} is not a variant of session ${session.id}`);
    const judgeKind = stringOption(ctx, 'judge');
    let judge: JudgeConfig | null = null;
    if (judgeKind !== undefined) {
      if (judgeKind !== 'openai') throw new UsageError(`--judge must be openai, got "${judgeKind}"`);
      const baseURL = stringOption(ctx, 'base-url');
      const model = stringOption(ctx, 'model');
      if (!baseURL || !model) throw new UsageError('--judge openai needs --base-url and --model');
      judge = { baseURL, model, judgeModel: stringOption(ctx, 'judge-model'), apiKey: ctx.env.OPENAI_API_KEY };
    }
    const outcome = await evaluateVariant(db, { variantId: v.id, atCall: intOption(ctx, 'at-call'), judge, signal: ctx.signal });
    if (ctx.jsonMode) {
      ctx.json({ sessionId: session.id, variantId: v.id, variant: { ...outcome.variant, summary: summaryOf(outcome.variant) }, source: outcome.source ? { ...outcome.source, summary: summaryOf(outcome.source) } : null });
      return 0;
    }
    const line = (label: string, e: ProbeEvaluation) => {
      ctx.out(`${label}: turns ${e.firstPosition}-${e.lastPosition}${e.atCall !== null ? ` at call ${e.atCall}` : ''}: ${probeScoreLabel(summaryOf(e))} [${e.promptVersion}]`);
      for (const r of e.results) ctx.out(`  ${r.kind.padEnd(12)} ${r.score === null ? 'ungraded' : `${r.score}/5`}  ${r.question}  (${r.reason})`);
    };
    line(`Variant ${v.id} (${v.strategy})`, outcome.variant);
    if (outcome.source) line("Baseline: the source tool's own compaction", outcome.source);
    else ctx.out('Baseline: the source tool did not compact this session.');
    if (!judge) ctx.out('Graded offline by text presence: whether the strings of each answer are in the compacted context, a weaker check than a judged answer (--judge openai).');
    return 0;
  },
};
