/**
 * A comparison (shared/compare/) as a file: the whole document as JSON, or a Markdown
 * report with the totals table (variants + the two baselines), the contexts at the call
 * (turns per fate) and where they differ, the facts that survive in one and not the other,
 * and the summaries of the same span. Pure: the
 * CLI prints it, the window downloads it.
 */
import type { ReplayTotals } from '../contract.js';
import { figureFlags } from '../cost/figures.js';
import type { Comparison, TurnFate } from '../compare/types.js';
import { TURN_FATES } from '../compare/types.js';
import { slug, type ExportFile } from './types.js';

function fileBase(c: Comparison): string {
  const ids = c.columns.filter((x) => x.variantId !== null).map((x) => x.variantId).join('-');
  return `${slug(c.sessionTitle)}-compare-v${ids}${c.context ? `-call${c.context.call}` : ''}`;
}

export function exportComparisonJson(c: Comparison): ExportFile {
  return { fileName: `${fileBase(c)}.json`, mimeType: 'application/json', content: `${JSON.stringify(c, null, 2)}\n` };
}

/** A Markdown table cell: pipes escaped, line breaks flattened. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const usd = (x: number) => `$${x.toFixed(4)}`;
const span = (from: number, to: number) => (from === to ? `${from}` : `${from}–${to}`);
const FATE_MARK: Record<TurnFate, string> = { verbatim: 'verbatim', reshaped: 'reshaped', masked: 'masked', summarized: 'summarized', dropped: 'dropped' };

function totalsRow(label: string, status: string, t: ReplayTotals | null): string {
  if (!t) return `| ${cell(label)} | ${status} | – | – | – | – | – | – | – |`;
  // An infeasible or incomplete figure says so beside its cost (shared/cost/figures.ts).
  return `| ${cell(label)} | ${status} | ${t.modelCalls} | ${t.inputTokens} | ${t.cacheReadTokens} | ${usd(t.costUsd)} | ${t.peakContext} | ${t.firings} | ${cell(figureFlags(t)) || '–'} |`;
}

export function comparisonMarkdown(c: Comparison): string {
  const out: string[] = [`# Comparison: ${c.sessionTitle}`, ''];
  out.push('## Totals', '', '| column | status | model calls | input tokens | cache read | cost | peak context | compactions | flags |', '|---|---|---:|---:|---:|---:|---:|---:|---|');
  for (const col of c.columns) out.push(totalsRow(col.label, col.status, c.totals[col.key] ?? null));
  const ctx = c.context;
  if (ctx) {
    const label = (key: string) => c.columns.find((x) => x.key === key)?.label ?? key;
    out.push('', `## Context at call ${ctx.call} (turns 0–${ctx.position - 1})`, '');
    out.push(`| column | context tokens | view tokens | messages | ${TURN_FATES.join(' | ')} |`, `|---|---:|---:|---:|${TURN_FATES.map(() => '---:').join('|')}|`);
    for (const col of ctx.columns) out.push(`| ${cell(label(col.key))} | ${col.contextTokens ?? '–'} | ${col.viewTokens} | ${col.messages} | ${TURN_FATES.map((f) => col.counts[f]).join(' | ')} |`);
    out.push('', '### Where they differ', '', `| turns | ${ctx.columns.map((x) => cell(label(x.key))).join(' | ')} |`, `|---|${ctx.columns.map(() => '---').join('|')}|`);
    for (const row of ctx.diff.filter((r) => !r.same)) out.push(`| ${span(row.from, row.to)} | ${row.fates.map((f, i) => `${FATE_MARK[f]}${row.summaryIds[i] !== null ? ` (#${row.summaryIds[i]})` : ''}`).join(' | ')} |`);
    const f = ctx.facts;
    out.push('', '### Facts: which survive in one and not the other', '');
    out.push(`${f.total} facts in the ${f.compactedTurns} turns some column compacted; kept: ${f.columnKeys.map((k, i) => `${cell(label(k))} ${f.kept[i]}`).join(', ')}; ${f.differing} differ.`, '');
    // The text-level score beside the fact counts (shared/retention/text.ts).
    out.push(`Text-level: ${f.textTotal} strings of the same turns (paths, identifiers, numbers, commands as written); found in: ${f.columnKeys.map((k, i) => `${cell(label(k))} ${f.textKept[i]}`).join(', ')}.`, '');
    out.push('Rows where the columns differ, by salience:', '');
    out.push(`| fact | category | salience | ${f.columnKeys.map((k) => cell(label(k))).join(' | ')} |`, `|---|---|---:|${f.columnKeys.map(() => ':---:').join('|')}|`);
    for (const r of f.rows.filter((x) => x.differs)) out.push(`| \`${cell(r.text)}\`${r.detail ? ` (${cell(r.detail)})` : ''} | ${r.category} | ${r.salience.toFixed(2)} | ${r.survives.map((x) => (x ? '✓' : '✗')).join(' | ')} |`);
    if (ctx.sameSpan.length > 0) {
      out.push('', '### Summaries of the same span');
      for (const g of ctx.sameSpan) {
        out.push('', `#### Turns ${span(g.from, g.to)}`, '');
        for (const s of g.summaries) out.push(`- **${cell(label(s.key))}**, summary #${s.id} (${s.kind}, turns ${span(s.firstPosition, s.lastPosition)}, ${s.tokens} tokens): ${cell(s.text.length > 600 ? `${s.text.slice(0, 600)}…` : s.text)}`);
      }
    }
  }
  return `${out.join('\n')}\n`;
}

export function exportComparisonMarkdown(c: Comparison): ExportFile {
  return { fileName: `${fileBase(c)}.md`, mimeType: 'text/markdown', content: comparisonMarkdown(c) };
}
