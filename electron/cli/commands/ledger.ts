/**
 * `ledger <session> [--variant V]`: the loss ledger: per summary, which facts
 * of the span it covers survive in its text (retention per category) and the most salient
 * lost ones; per variant, the retention of its live summaries; and the baseline, the
 * ledger of the source tool's own compaction summary (Claude Code's) over the same turns.
 */
import type { LedgerReport } from '../../../shared/contract.js';
import { FACT_CATEGORIES, lostLine, type SummaryLedger } from '../../../shared/facts/index.js';
import { externalCompactionLedger } from '../../engine/summary-ledger.js';
import { listExternalCompactions } from '../../store/turns.js';
import { getVariant, listSummaries, listVariants } from '../../store/variants.js';
import { variantScores } from '../../store/summary-facts.js';
import { textRetentionLabel, type TextRetention } from '../../../shared/retention/text.js';
import { requireSession, stringOption, UsageError, type CliCommand } from '../framework.js';

function retentionLine(r: SummaryLedger['retention'] | null, text?: TextRetention | null): string {
  if (!r) return 'no ledger';
  const kept = FACT_CATEGORIES.reduce((n, c) => n + r[c].kept, 0);
  const total = FACT_CATEGORIES.reduce((n, c) => n + r[c].total, 0);
  const facts = FACT_CATEGORIES.filter((c) => r[c].total > 0)
    .map((c) => `${c} ${r[c].kept}/${r[c].total}`)
    .join(', ');
  // The fact ledger's score, then the text-level score of the same span beside it.
  return `facts ${kept}/${total} (${facts}); ${textRetentionLabel(text)}`;
}

export const command: CliCommand = {
  name: 'ledger',
  summary: 'The loss ledger: which facts of each compacted span survive in its summary, and the source tool\'s own summary as the baseline',
  usage: 'ledger <session> [--variant V] [--db PATH] [--json]',
  options: {
    variant: { type: 'string', valueName: 'V', description: 'only this variant (default: every variant of the session)' },
  },
  minPositionals: 1,
  maxPositionals: 1,
  run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const variantArg = stringOption(ctx, 'variant');
    if (variantArg !== undefined && !/^\d+$/.test(variantArg)) throw new UsageError(`--variant must be a variant id (a positive number), got "${variantArg}"`);
    const variants = variantArg === undefined ? listVariants(db, session.id) : [getVariant(db, Number(variantArg))].filter((v) => v !== null && v.sessionId === session.id);
    if (variantArg !== undefined && variants.length === 0) throw new UsageError(`variant ${variantArg} is not a variant of session ${session.id}`);
    const report: LedgerReport = {
      sessionId: session.id,
      baselines: listExternalCompactions(db, session.id).map((c) => ({ firstPosition: c.firstPosition, lastPosition: c.lastPosition, summaryTokenCount: c.summaryTokenCount, ledger: externalCompactionLedger(db, c) })),
      variants: variants.map((v) => ({
        variantId: v!.id,
        strategy: v!.strategy,
        retention: variantScores(db, v!.id)?.retention ?? null,
        textRetention: variantScores(db, v!.id)?.text ?? null,
        summaries: listSummaries(db, v!.id).map((s) => ({ summaryId: s.id, kind: s.kind, depth: s.depth, firstPosition: s.firstPosition, lastPosition: s.lastPosition, tokens: s.tokenCount, compacted: s.compacted, ledger: s.ledger ?? null })),
      })),
    };
    if (ctx.jsonMode) {
      ctx.json(report);
      return 0;
    }
    for (const b of report.baselines) {
      ctx.out(`Baseline: the source tool's summary of turns ${b.firstPosition}-${b.lastPosition} (${b.summaryTokenCount} tokens): ${retentionLine(b.ledger?.retention ?? null, b.ledger?.text)}`);
      if (b.ledger) ctx.out(`  ${lostLine(b.ledger.lost)}`);
    }
    for (const v of report.variants) {
      ctx.out(`Variant ${v.variantId} (${v.strategy}): ${retentionLine(v.retention, v.textRetention)}`);
      for (const s of v.summaries) {
        ctx.out(`  summary ${s.summaryId} ${s.kind} d${s.depth} turns ${s.firstPosition}-${s.lastPosition}${s.compacted ? ' (folded)' : ''}, ${s.tokens} tokens: ${retentionLine(s.ledger?.retention ?? null, s.ledger?.text)}`);
        if (s.ledger && s.ledger.lost.length > 0) ctx.out(`    ${lostLine(s.ledger.lost)}`);
      }
    }
    if (report.baselines.length === 0 && report.variants.length === 0) ctx.out('No compactions yet: run `compact` or `replay`, or import a session that the source tool compacted.');
    return 0;
  },
};
