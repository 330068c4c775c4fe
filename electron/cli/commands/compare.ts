/**
 * `compare <session> --variants 1,2 [--call N] --json|--markdown`: 2–4 variants of a session
 * side by side with the two baselines (no compaction; the source tool's own compactions):
 * totals from each variant's newest completed replay, and the contexts at call N (default:
 * the source's first own compaction) with which turns each keeps, summarizes, masks or drops.
 * The same document the window's Compare tab shows (electron/services/compare.ts).
 */
import { compareVariants } from '../../services/compare.js';
import { exportComparisonJson, comparisonMarkdown } from '../../../shared/export/index.js';
import { StudioError } from '../../../shared/contract.js';
import { CliError, intOption, requireSession, stringOption, UsageError, type CliCommand } from '../framework.js';

export const command: CliCommand = {
  name: 'compare',
  summary: 'Compare 2–4 variants side by side with the no-compaction and source-tool baselines',
  usage: 'compare <session> --variants ID,ID[,ID,ID] [--call N] [--markdown] [--db PATH] [--json]',
  description:
    "Totals come from each variant's newest completed replay (run `replay` first; a variant without one is listed as not-replayed). At --call N (default: the call where the source tool first compacted) each column's context is read turn by turn: verbatim, reshaped, masked, summarized (into which summary) or dropped, with the runs of turns where the columns differ, the facts of the compacted turns that survive in one column and not another (✓/✗ by salience), and the summaries that cover the same span. --json prints the whole document, --markdown (the default without --json) a report with the totals table.",
  options: {
    variants: { type: 'string', valueName: 'IDS', description: 'comma-separated variant ids (1 to 4; see `variants <session>`)' },
    call: { type: 'string', valueName: 'N', description: 'the model call whose contexts are compared (0-based)' },
    markdown: { type: 'boolean', description: 'print the Markdown report (the default without --json)' },
  },
  minPositionals: 1,
  maxPositionals: 1,
  async run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const raw = stringOption(ctx, 'variants');
    if (raw === undefined) throw new UsageError('--variants is required (e.g. --variants 1,2)');
    const variantIds = raw.split(',').map((s) => s.trim());
    if (variantIds.some((s) => !/^\d+$/.test(s) || Number(s) < 1)) throw new UsageError(`--variants must be variant ids separated by commas, got "${raw}"`);
    const call = intOption(ctx, 'call');
    if (ctx.jsonMode && ctx.options.markdown === true) throw new UsageError('--json and --markdown: choose one');
    let comparison;
    try {
      comparison = compareVariants(db, { sessionId: session.id, variantIds: variantIds.map(Number), call });
    } catch (e) {
      if (e instanceof StudioError) throw new CliError(e.message, e.code, 1);
      throw e;
    }
    if (ctx.jsonMode) ctx.json(JSON.parse(exportComparisonJson(comparison).content));
    else ctx.stdout.write(comparisonMarkdown(comparison));
    return 0;
  },
};
