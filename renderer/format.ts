/** Display formatting shared by the window's components. */
import type { ContentBlock, Turn } from '../shared/model/turn.js';

const intFormat = new Intl.NumberFormat('en-US');

/** 12345 -> "12,345". */
export function formatInt(n: number): string {
  return intFormat.format(Math.round(n));
}

/** 12345 -> "12.3k", 1234567 -> "1.23M": for dense columns. */
export function formatCompact(n: number): string {
  const abs = Math.abs(n);
  if (abs < 1000) return String(Math.round(n));
  if (abs < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (abs < 1_000_000) return `${Math.round(n / 1000)}k`;
  if (abs < 10_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** US dollars as the window shows cost ("—" when unknown). */
export function formatUsd(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (x === 0) return '$0';
  if (Math.abs(x) < 0.01) return `$${x.toFixed(4)}`;
  if (Math.abs(x) < 100) return `$${x.toFixed(2)}`;
  return `$${formatInt(x)}`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatPercent(ratio: number): string {
  return `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

// One formatter: toLocaleString with options builds a new one per call (slow in a 200-row table).
const timeFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

export function formatTime(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return timeFormat.format(d);
}

const FIRST_LINE_MAX = 240;

function firstNonEmptyLine(text: string): string {
  for (const line of text.split('\n', 40)) {
    const t = line.trim();
    if (t) return t.length > FIRST_LINE_MAX ? `${t.slice(0, FIRST_LINE_MAX)}…` : t;
  }
  return '';
}

function compactJson(value: unknown): string {
  try {
    const s = JSON.stringify(value);
    return s && s.length > FIRST_LINE_MAX ? `${s.slice(0, FIRST_LINE_MAX)}…` : (s ?? '');
  } catch {
    return String(value);
  }
}

/**
 * The line a row shows: the first line of text, else a tool call as `name(args)`, else the
 * first line of a tool result, so a row is never blank for tool-only turns.
 */
export function firstLineOf(blocks: readonly ContentBlock[]): string {
  for (const b of blocks) if (b.type === 'text') {
    const line = firstNonEmptyLine(b.text);
    if (line) return line;
  }
  for (const b of blocks) if (b.type === 'tool_use') return `${b.name}(${compactJson(b.input)})`;
  for (const b of blocks) if (b.type === 'tool_result') {
    const line = firstNonEmptyLine(b.content);
    if (line) return line;
  }
  for (const b of blocks) if (b.type === 'thinking') return firstNonEmptyLine(b.thinking);
  for (const b of blocks) if (b.type === 'image') return `[image ${b.mediaType}]`;
  return '';
}

/** Tool names called in a turn, in order (for the collapsed chips). */
export function toolNamesOf(turn: Pick<Turn, 'blocks'>): string[] {
  const names: string[] = [];
  for (const b of turn.blocks) if (b.type === 'tool_use') names.push(b.name);
  return names;
}

export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? 'null';
  } catch {
    return String(value);
  }
}
