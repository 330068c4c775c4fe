/**
 * What every importer produces: sessions of canonical turns (shared/model/turn.ts),
 * plus the compactions the source tool itself recorded. The writer
 * (electron/importers/) gives them ids, counts and rows.
 */
import type { ImportedTurn } from '../../shared/model/turn.js';
import type { ModelCallUsage } from '../../shared/usage/types.js';
import type { JsonlRecord, Peekable } from './source.js';

export const FORMATS = ['claude-code', 'openai', 'anthropic', 'openhands', 'swe-agent', 'sharegpt', 'codex', 'tau-bench'] as const;
export type FormatName = (typeof FORMATS)[number];

export function isFormatName(s: string): s is FormatName {
  return (FORMATS as readonly string[]).includes(s);
}

/** A compaction recorded by the source (Claude Code compact_boundary + isCompactSummary, Codex `compacted`). */
export interface ImportedExternalCompaction {
  /** 'auto' | 'manual' for Claude Code; whatever the source says otherwise. */
  trigger: string;
  /** Context size the source reported just before compacting, when it did. */
  preTokens: number | null;
  summaryText: string;
  /** Span of turns (positions in this session) the compaction summarized. */
  firstPosition: number;
  lastPosition: number;
  /** Position of the first turn after the boundary (= turn count when none follow). */
  boundaryPosition: number;
  sourceId?: string | null;
  timestamp?: string | null;
}

/**
 * What the source reported about the model call that produced an assistant turn. The
 * writer adds the turn's id and position and decides `placeholder` (it knows the
 * transcript tokens before the call: shared/usage/placeholder.ts).
 */
export type ImportedCallUsage = Omit<ModelCallUsage, 'position' | 'turnId' | 'placeholder'>;

/** A canonical turn plus, on an assistant turn, the usage of the call that produced it. */
export interface ImportedSessionTurn extends ImportedTurn {
  usage?: ImportedCallUsage;
}

export interface ImportedSession {
  title: string;
  format: FormatName;
  /**
   * The turns in order. May be a lazy generator (streamed formats): the writer
   * consumes it once, then reads `title`, `externalCompactions` and `metadata`,
   * which a streaming importer may still fill while it is being consumed.
   */
  turns: Iterable<ImportedSessionTurn>;
  externalCompactions: ImportedExternalCompaction[];
  /** Subagent / sidechain id when this session is one. */
  agentId?: string | null;
  /** Source facts worth keeping: skipped record counts, cwd, version, ids... */
  metadata?: Record<string, unknown>;
  /** Subagent sessions, linked to this one as their parent. */
  children?: ImportedSession[];
  /** A child read from its own file: that file's display name and content hash. */
  sourceFile?: string;
  sourceHash?: string;
}

/** Parsed input handed to an importer: either JSONL records (streamed) or one JSON document. */
export type ParsedInput =
  | { kind: 'jsonl'; records: Peekable<JsonlRecord> }
  | { kind: 'document'; value: unknown };

export interface ImporterContext {
  /** Display name for messages and default titles. */
  fileName: string;
}

export interface Importer {
  format: FormatName;
  import(input: ParsedInput, ctx: ImporterContext): ImportedSession[];
}

/** Title from the first words of a text, one line, at most `max` characters. */
export function titleFrom(text: string, max = 80): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1).trimEnd()}…`;
}

/** The file name without directories and the transcript extension. */
export function baseTitle(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return base.replace(/\.(jsonl|ndjson|json|traj)$/i, '');
}
