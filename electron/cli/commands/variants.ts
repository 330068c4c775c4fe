/**
 * `variants <session>`: the session's variant table, the window's columns (name, strategy,
 * parameters away from the defaults, summarizer, runs, firings, tokens sent, summarizer
 * calls, cost of the latest replay, retention, last run); `--rename ID --name NAME` and
 * `--delete ID` change it. Empty unnamed variants are hidden (store/variants.ts).
 */
import { textRetentionPct } from '../../../shared/retention/text.js';
import { STRATEGY_DEFINITIONS } from '../../../shared/strategies/index.js';
import { paramsAwayFromDefaults } from '../../../shared/strategies/params.js';
import type { VariantListing } from '../../../shared/contract.js';
import { deleteVariant, getVariant, listRuns, listVariants, renameVariant, variantHasRunningRun } from '../../store/variants.js';
import { CliError, formatTable, requireSession, UsageError, type CliCommand } from '../framework.js';

function variantIdOption(raw: string, sessionId: number, db: Parameters<typeof getVariant>[0]) {
  const id = Number(raw);
  const v = Number.isInteger(id) && id > 0 ? getVariant(db, id) : null;
  if (!v || v.sessionId !== sessionId) throw new CliError(`no variant ${raw} in session ${sessionId} (see \`compaction-studio variants ${sessionId}\`)`, 'not_found', 1);
  return v;
}

const changedParams = (v: VariantListing) =>
  paramsAwayFromDefaults(STRATEGY_DEFINITIONS[v.strategy]?.specs ?? [], v.params)
    .map(({ spec, value }) => `${spec.name}=${value}`)
    .join(' ') || 'defaults';

function retention(v: VariantListing): string {
  if (!v.retention) return '-';
  let kept = 0;
  let total = 0;
  for (const x of Object.values(v.retention)) {
    kept += x.kept;
    total += x.total;
  }
  return total === 0 ? '-' : `${Math.round((kept / total) * 100)}%`;
}

/** The text-level score (shared/retention/text.ts) beside the fact ledger's. */
function textRetention(v: VariantListing): string {
  const pct = textRetentionPct(v.textRetention);
  return pct === null ? '-' : `${Math.round(pct)}%`;
}

const dash = (n: number | null) => (n === null ? '-' : n);

export const command: CliCommand = {
  name: 'variants',
  summary: 'List the variants of a session (name, strategy, changed parameters, summarizer, runs, replay totals); rename or delete one',
  usage: 'variants <session> [--rename ID --name NAME | --delete ID] [--db PATH] [--json]',
  options: {
    rename: { type: 'string', valueName: 'ID', description: 'rename variant ID to --name (an empty name clears it)' },
    name: { type: 'string', valueName: 'NAME', description: 'the new name, with --rename' },
    delete: { type: 'string', valueName: 'ID', description: "delete variant ID with its runs and summaries (the session's turns are never touched)" },
  },
  minPositionals: 1,
  maxPositionals: 1,
  run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const { rename, name, delete: del } = ctx.options as { rename?: string; name?: string; delete?: string };
    if (rename !== undefined && del !== undefined) throw new UsageError('--rename and --delete are exclusive');
    if ((rename === undefined) !== (name === undefined)) throw new UsageError('--rename ID needs --name NAME (and --name needs --rename)');
    if (rename !== undefined) {
      const v = variantIdOption(rename, session.id, db);
      const trimmed = name!.trim();
      if (trimmed === '' && v.runs === 0 && v.summaries === 0) throw new CliError(`variant ${v.id} has no runs: it keeps a name (delete it instead)`, 'bad_params', 1);
      renameVariant(db, v.id, trimmed === '' ? null : trimmed);
      if (ctx.jsonMode) ctx.json({ renamed: true, id: v.id, name: trimmed === '' ? null : trimmed });
      else ctx.out(trimmed === '' ? `Cleared the name of variant ${v.id}.` : `Renamed variant ${v.id} to "${trimmed}".`);
      return 0;
    }
    if (del !== undefined) {
      const v = variantIdOption(del, session.id, db);
      if (variantHasRunningRun(db, v.id)) throw new CliError(`variant ${v.id} has a run in progress; cancel it before deleting the variant`, 'busy', 1);
      deleteVariant(db, v.id);
      if (ctx.jsonMode) ctx.json({ deleted: true, id: v.id, runs: v.runs, summaries: v.summaries });
      else ctx.out(`Deleted variant ${v.id} with ${v.runs} run${v.runs === 1 ? '' : 's'} and ${v.summaries} summar${v.summaries === 1 ? 'y' : 'ies'}.`);
      return 0;
    }

    const listing = listVariants(db, session.id);
    if (ctx.jsonMode) {
      // The JSON keeps the newest run whole (id, stats, error) as before the variant table.
      const variants = listing.map((v) => {
        const runs = listRuns(db, v.id);
        const last = runs[runs.length - 1];
        return { ...v, lastRun: last ? { id: last.id, kind: last.kind, status: last.status, startedAt: last.startedAt, endedAt: last.endedAt, stats: last.stats, error: last.error } : null };
      });
      ctx.json({ sessionId: session.id, variants });
      return 0;
    }
    if (listing.length === 0) {
      ctx.out(`Session ${session.id} has no variants yet. Create one with: compaction-studio compact ${session.id} --strategy dag`);
      return 0;
    }
    for (const line of formatTable(listing, [
      { header: 'ID', value: (v) => v.id },
      { header: 'NAME', value: (v) => v.name ?? '-', maxWidth: 30 },
      { header: 'STRATEGY', value: (v) => v.strategy },
      { header: 'PARAMETERS', value: changedParams, maxWidth: 60 },
      { header: 'SUMMARIZER', value: (v) => (v.summarizer.kind === 'openai' ? `openai ${v.summarizer.model ?? ''}` : v.summarizer.kind) },
      { header: 'RUNS', value: (v) => v.runs },
      { header: 'FIRINGS', value: (v) => dash(v.firings), align: 'right' },
      { header: 'TOKENS SENT', value: (v) => dash(v.tokensSent), align: 'right' },
      { header: 'SUMM. CALLS', value: (v) => dash(v.summarizerCalls), align: 'right' },
      { header: 'COST', value: (v) => (v.costUsd === null ? '-' : `$${v.costUsd.toFixed(4)}`), align: 'right' },
      { header: 'FACT RET.', value: retention, align: 'right' },
      { header: 'TEXT RET.', value: textRetention, align: 'right' },
      { header: 'PROBES', value: (v) => (v.probes?.meanScore != null ? `${v.probes.meanScore.toFixed(2)}/5 ${v.probes.mode === 'judge' ? 'judge' : 'text'}` : '-'), align: 'right' },
      { header: 'LAST RUN', value: (v) => (v.lastRun ? `${v.lastRun.at} ${v.lastRun.kind} ${v.lastRun.status}` : '-') },
    ])) ctx.out(line);
    return 0;
  },
};
