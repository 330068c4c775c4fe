/** `variants <session>`: the variants of a session with their summaries and last run. */
import { listRuns, listVariants } from '../../store/variants.js';
import { formatTable, requireSession, type CliCommand } from '../framework.js';

export const command: CliCommand = {
  name: 'variants',
  summary: 'List the compaction variants of a session (strategy, parameters, summarizer, runs)',
  usage: 'variants <session> [--db PATH] [--json]',
  options: {},
  minPositionals: 1,
  maxPositionals: 1,
  run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const variants = listVariants(db, session.id).map((v) => {
      const runs = listRuns(db, v.id);
      const last = runs[runs.length - 1];
      return { ...v, lastRun: last ? { id: last.id, status: last.status, startedAt: last.startedAt, endedAt: last.endedAt, stats: last.stats, error: last.error } : null };
    });
    if (ctx.jsonMode) {
      ctx.json({ sessionId: session.id, variants });
      return 0;
    }
    if (variants.length === 0) {
      ctx.out(`Session ${session.id} has no variants yet. Create one with: compaction-studio compact ${session.id} --strategy dag`);
      return 0;
    }
    for (const line of formatTable(variants, [
      { header: 'ID', value: (v) => v.id },
      { header: 'STRATEGY', value: (v) => v.strategy },
      { header: 'SUMMARIZER', value: (v) => (v.summarizer.kind === 'openai' ? `openai ${v.summarizer.model ?? ''}` : v.summarizer.kind) },
      { header: 'SUMMARIES', value: (v) => v.summaries },
      { header: 'RUNS', value: (v) => v.runs },
      { header: 'LAST RUN', value: (v) => (v.lastRun ? `${v.lastRun.status}` : '-') },
      { header: 'TOKENS', value: (v) => (v.lastRun && v.lastRun.stats.tokensAfter !== undefined ? `${v.lastRun.stats.tokensBefore} -> ${v.lastRun.stats.tokensAfter}` : '-') },
      { header: 'PARAMETERS', value: (v) => Object.entries(v.params).map(([k, x]) => `${k}=${x}`).join(' '), maxWidth: 90 },
    ])) ctx.out(line);
    return 0;
  },
};
