/**
 * A replay's timeline as CSV, one row per model call: where the call is, what the model
 * received under the variant and without compaction, what the source tool recorded,
 * the prompt-cache split and the cost, whether the strategy fired before the call, the
 * model the call is priced at and that model's context window. The header names every
 * column; numbers are plain (no thousands separators); a model name holding a comma or a
 * quote is quoted (RFC 4180).
 */
import type { ReplayTimeline } from '../contract.js';
import { slug, type ExportFile } from './types.js';

export const TIMELINE_COLUMNS = [
  'call',
  'position',
  'timestamp',
  'transcript_tokens',
  'context_tokens',
  'no_compaction_tokens',
  'source_recorded_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'uncached_input_tokens',
  'output_tokens',
  'cost_usd',
  'fired',
  'model',
  'context_window',
] as const;

const csvText = (x: string) => (/[",\n]/.test(x) ? `"${x.replaceAll('"', '""')}"` : x);

export function exportTimeline(t: ReplayTimeline, session: { title: string }): ExportFile {
  const c = t.calls;
  const rows: string[] = [TIMELINE_COLUMNS.join(',')];
  // Timelines stored before each call carried its model have only the session's.
  const names = t.pricing.models ?? [t.pricing.model];
  const windowOf = new Map((t.windows ?? []).map((w) => [w.model, w.tokens]));
  for (let k = 0; k < c.position.length; k++) {
    const ts = c.timestampMs[k];
    rows.push(
      [
        k,
        c.position[k],
        ts === null ? '' : new Date(ts).toISOString(),
        c.transcript[k],
        c.context[k],
        t.baselines.none.context[k] ?? '',
        t.baselines.source.context[k] ?? '',
        c.cacheRead[k],
        c.cacheWrite[k],
        c.uncached[k],
        c.output[k],
        c.costUsd[k],
        c.fired[k] ? 1 : 0,
        csvText(names[t.callModel?.[k] ?? 0] ?? t.pricing.model),
        windowOf.get(names[t.callModel?.[k] ?? 0] ?? t.pricing.model) ?? t.baselines.none.contextWindow,
      ].join(','),
    );
  }
  return { fileName: `${slug(session.title)}-${t.strategy}-replay${t.runId}.timeline.csv`, mimeType: 'text/csv', content: `${rows.join('\n')}\n` };
}
