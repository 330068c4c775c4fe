/**
 * `markdown`: the replay for reading. One section per message with its role, where it
 * comes from and its tokens; summaries are visibly marked (a **Summary** banner naming
 * the summary, its kind, depth, tier, model and the turns it covers, then its text as a
 * quote); tool calls and results are fenced; thinking is a quoted aside.
 */
import type { ContentBlock } from '../model/turn.js';
import { stableJson } from '../model/turn.js';
import type { ReplayMessage, SummaryInfo } from '../contract.js';
import { exportFileName, type ExportFile, type ExportInput } from './types.js';

/** A code fence longer than any run of backticks inside `text`. */
function fenced(text: string, lang = ''): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text}\n${fence}`;
}

const quote = (text: string) =>
  text
    .split('\n')
    .map((l) => (l.length > 0 ? `> ${l}` : '>'))
    .join('\n');

function originText(o: ReplayMessage['origin']): string {
  switch (o.kind) {
    case 'turn':
      return `turn ${o.position}`;
    case 'summary':
      return `summary s${o.summaryId}`;
    case 'synthetic':
      return 'synthetic';
    default: {
      const _exhaustive: never = o;
      return _exhaustive;
    }
  }
}

function summaryBanner(s: SummaryInfo): string {
  return `**Summary** s${s.id} · ${s.kind} · depth ${s.depth} · tier ${s.tier} · model ${s.model} · turns ${s.firstPosition}–${s.lastPosition} · ${s.tokenCount} tokens${s.cacheHit ? ' · cache hit' : ''}`;
}

function blockMarkdown(b: ContentBlock, summaryFor: (text: string) => SummaryInfo | undefined): string {
  switch (b.type) {
    case 'text': {
      const s = summaryFor(b.text);
      return s ? `${summaryBanner(s)}\n\n${quote(b.text)}` : b.text;
    }
    case 'thinking':
      return `${quote(`*thinking:* ${b.thinking}`)}`;
    case 'tool_use':
      return `**Tool call** \`${b.name}\` (\`${b.id}\`)\n\n${fenced(JSON.stringify(b.input ?? null, null, 2) ?? stableJson(b.input), 'json')}`;
    case 'tool_result':
      return `**Tool ${b.is_error ? 'error' : 'result'}** for \`${b.tool_use_id}\`\n\n${fenced(b.content)}`;
    case 'image':
      return `*[image: ${b.mediaType}, ${b.sizeBytes} bytes]*`;
    default: {
      const _exhaustive: never = b;
      return _exhaustive;
    }
  }
}

export function toMarkdown(input: ExportInput): string {
  const byId = new Map(input.summaries.map((s) => [s.id, s]));
  const { messages, totalTokens, variantId } = input.replay;
  const summariesShown = new Set<number>();
  const lines: string[] = [`# ${input.session.title}`, ''];
  const strategy = input.variant ? ` · strategy ${input.variant.strategy}` : '';
  lines.push(`Variant ${variantId}${strategy} · ${messages.length} messages · ${totalTokens} tokens`);
  lines.push('');
  messages.forEach((m, i) => {
    const origins = m.parts ?? [m.origin];
    // A summary's text block is the one that contains that summary's text (the replay wraps it).
    const candidates = origins.flatMap((o) => (o.kind === 'summary' && byId.has(o.summaryId) ? [byId.get(o.summaryId)!] : []));
    const summaryFor = (text: string) => candidates.find((s) => text.includes(s.text));
    for (const c of candidates) summariesShown.add(c.id);
    lines.push('---', '', `### ${i + 1}. ${m.role} · ${origins.map(originText).join(', ')} · ${m.tokens} tokens`, '');
    for (const b of m.blocks) lines.push(blockMarkdown(b, summaryFor), '');
  });
  const hidden = input.summaries.filter((s) => !summariesShown.has(s.id));
  if (hidden.length > 0) {
    lines.push('---', '', '## Summaries not in the context', '', 'Folded into a parent, superseded or replaced by an upgrade; kept for the record.', '');
    for (const s of hidden) lines.push(`- ${summaryBanner(s)}${s.compacted ? ' · compacted' : ''}`);
    lines.push('');
  }
  return lines.join('\n');
}

export function exportMarkdown(input: ExportInput): ExportFile {
  return { fileName: exportFileName(input, 'md'), mimeType: 'text/markdown', content: toMarkdown(input) };
}
