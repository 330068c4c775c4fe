/**
 * THE contract between the window and the main process: every operation the
 * renderer may ask for, with a zod schema for its input (validated at the trust
 * boundary: ipcMain.handle in Electron, the HTTP server in browser mode) and the
 * TypeScript type of its result. Preload, HTTP transport and renderer client are all
 * derived from OPERATIONS, so there is one list of operations, not three.
 */
import type { TextRetention } from './retention/text.js';
import type { ProbeEvaluationSummary } from './probes/types.js';
import { z } from 'zod';
import { userPricesSchema, type UserPrices } from './cost/prices.js';
import { userContextWindowsSchema, type UserContextWindows } from './cost/windows.js';
import { STRATEGIES } from './strategies/types.js';
import { isPromptTemplateId, PROMPT_TEMPLATE_IDS } from './summarize/prompts.js';
import type { ExistingSummary, Plan, StrategyName, SummaryKind, SummaryTier, VariantState } from './strategies/types.js';
import type { ParamNote } from './strategies/params.js';
import type { Role, Turn } from './model/turn.js';
import type { OverheadFit } from './usage/overhead.js';
import type { ModelCallUsage } from './usage/types.js';
import type { ErrorCode } from './contract-names.js';
import type { Comparison } from './compare/types.js';
import type { SweepDetail, SweepInfo } from './sweep/types.js';
export type { SweepAxis, SweepDetail, SweepInfo, SweepKind, SweepRow, RetentionCell } from './sweep/types.js';
export type { FactCategory, SummaryLedger, LedgerEntry } from './facts/types.js';
import type { FactCategory, SummaryLedger } from './facts/types.js';

export * from './contract-names.js';

const Id = z.number().int().positive();
const ParamValue = z.union([z.number(), z.string(), z.boolean()]);
export const ParamsSchema = z.record(z.string(), ParamValue);
export const StrategySchema = z.enum(STRATEGIES);
export const ExportFormatSchema = z.enum(['openai', 'anthropic', 'jsonl', 'markdown', 'dag']);
export type ExportFormat = z.infer<typeof ExportFormatSchema>;
export const TokenizerSchema = z.enum(['o200k_base', 'cl100k_base']);

/** Edited prompt templates by id (shared/summarize/prompts.ts); a missing id uses the default. */
export const PromptOverridesSchema = z
  .record(z.string(), z.string().max(50_000))
  .refine((o) => Object.keys(o).every(isPromptTemplateId), { message: `prompt template ids are ${PROMPT_TEMPLATE_IDS.join(', ')}` });

/**
 * The fallback ladder per strategy (electron/summarize/tiers.ts): on, a failed or unusable
 * model output is retried at the aggressive tier, then replaced by the extractive summary
 * (where the pass allows it); off, the first failure is an error. A missing strategy uses its
 * design's default (its definition's `fallbackLadder`: off for rolling, on for the others).
 */
export const FallbackLadderSchema = z
  .record(z.string(), z.boolean())
  .refine((o) => Object.keys(o).every((k) => (STRATEGIES as readonly string[]).includes(k)), { message: `fallback ladder keys are strategies: ${STRATEGIES.join(', ')}` });

/**
 * Summarizer choice as the window sends it. The API key never travels back. `prompts`: the
 * user's edited templates, used by the openai kind (each strategy's variant takes the
 * overrides of the templates it uses; they are part of its prompt version). `fallbackLadder`:
 * per strategy, whether its summaries go through the fallback ladder (a choice that differs
 * from the strategy's default is part of its variant's identity).
 */
export const SummarizerConfigSchema = z.object({
  kind: z.enum(['extractive', 'openai']),
  /** An OpenAI-compatible endpoint: http or https only (a file: or javascript: URL is refused). */
  baseURL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL')
    .optional(),
  model: z.string().min(1).optional(),
  prompts: PromptOverridesSchema.optional(),
  fallbackLadder: FallbackLadderSchema.optional(),
});
export type SummarizerConfig = z.infer<typeof SummarizerConfigSchema>;

export const SettingsInputSchema = z.object({
  summarizer: SummarizerConfigSchema.optional(),
  /** Write-only: stored encrypted (safeStorage) in Electron; never returned. Empty string clears it. */
  apiKey: z.string().optional(),
  concurrency: z.number().int().min(1).max(32).optional(),
  tokenizer: TokenizerSchema.optional(),
  /** USD per million tokens by model name: override the price table, price local/unlisted models. Replaces the stored map. */
  prices: userPricesSchema.optional(),
  /** Context windows by model name: override the window table (shared/cost/windows.ts). Replaces the stored map. */
  contextWindows: userContextWindowsSchema.optional(),
});

/**
 * The window's own name for a long job (an import), chosen before it sends the request, so
 * the job's progress events and cancelJob can name it while the request is still open.
 */
const JobId = z.string().min(1).max(100);

export const InputSchemas = {
  listSessions: z.object({}),
  getSession: z.object({ sessionId: Id }),
  /** Import file contents sent by the window (file input, drag-and-drop, browser mode). */
  importText: z.object({
    fileName: z.string().min(1).max(1024),
    text: z.string(),
    format: z.string().optional(),
    jobId: JobId.optional(),
  }),
  /**
   * Import several files sent by the window at once (a multi-file pick, a dropped folder):
   * `fileName` is the path relative to the picked folder (`project/<session>/subagents/agent-x.jsonl`),
   * so subagent files link to their parent session as the CLI links them.
   */
  importTexts: z.object({
    files: z.array(z.object({ fileName: z.string().min(1).max(1024), text: z.string() })).min(1).max(10_000),
    format: z.string().optional(),
    jobId: JobId.optional(),
  }),
  /** Import files by path (Electron dialogs and drops; main reads the files). */
  importPaths: z.object({ paths: z.array(z.string().min(1)).min(1), format: z.string().optional(), jobId: JobId.optional() }),
  /** Stops an import (by the `jobId` its request carried): its transaction rolls back, nothing of it is written. */
  cancelJob: z.object({ jobId: JobId }),
  deleteSession: z.object({ sessionId: Id }),
  /** A page of full turns for the virtualized list: positions [from, to). */
  listTurns: z.object({ sessionId: Id, from: z.number().int().min(0), to: z.number().int().min(0) }),
  /** Every turn's planning data in columns (cheap for 100,000 turns). */
  turnMetas: z.object({ sessionId: Id }),
  /** The model calls the source reported usage for, and the session's overhead fit. */
  sessionUsage: z.object({ sessionId: Id }),
  /** Replays the session call by call under a variant, in the background (run kind 'replay'); progress arrives as events. */
  startReplay: z.object({
    sessionId: Id,
    strategy: StrategySchema,
    params: ParamsSchema,
    /** Constant overhead when the session has no reported usage to fit (tokens). */
    overheadTokens: z.number().int().min(0).max(10_000_000).optional(),
    /** Model calls after which a background pass commits (two-line). Default 1. */
    commitDelayCalls: z.number().int().min(0).max(1000).optional(),
  }),
  /** A replay's timeline: per call context and cost, firings, totals, the two baselines. */
  getReplayRun: z.object({ runId: Id }),
  /** What the model saw at one call of a replay (the Context view as of that call). */
  replayContextAt: z.object({ runId: Id, call: z.number().int().min(0) }),
  /**
   * 2–4 variants side by side with the two baselines: totals, per-call series, and the
   * contexts at `call` (default: the source's first own compaction) with their diff.
   */
  compareVariants: z.object({ sessionId: Id, variantIds: z.array(Id).min(1).max(4), call: z.number().int().min(0).optional() }),
  search: z.object({ query: z.string().min(1).max(1000) }),
  /** Stored sweeps (the `sweep` CLI), newest first; with `sessionId`, only those with a point on that session. */
  listSweeps: z.object({ sessionId: Id.optional() }),
  /** A sweep and its rows: one per (session, parameter point), with the run's figures and retention. */
  getSweep: z.object({ sweepId: Id }),
  /** The session's variants the user owns (run, summarized or saved), with their run figures; empty unnamed variants are hidden. */
  listVariants: z.object({ sessionId: Id }),
  /**
   * The existing variant for (session, strategy, params, current summarizer), or null: a
   * lookup never creates one (the slider state is a draft). `variantId`: the variant the
   * user loaded from the table, preferred while its strategy and parameters are the ones asked
   * (it may have been made with another summarizer).
   */
  findVariant: z.object({ sessionId: Id, strategy: StrategySchema, params: ParamsSchema, variantId: Id.optional() }),
  /** Creates (or finds) the variant for these parameters with the current summarizer and names it: the user's explicit "Save". */
  saveVariant: z.object({ sessionId: Id, strategy: StrategySchema, params: ParamsSchema, name: z.string().max(200).optional() }),
  /** Renames a variant; an empty or blank name clears it. */
  renameVariant: z.object({ variantId: Id, name: z.string().max(200) }),
  /** Deletes a variant with its runs and summaries (never turns); refused (`busy`) while one of its runs is running. */
  deleteVariant: z.object({ variantId: Id }),
  listSummaries: z.object({ variantId: Id }),
  listRuns: z.object({ variantId: Id }),
  /** Starts a pass in the background; progress arrives as events. */
  startCompaction: z.object({
    sessionId: Id,
    strategy: StrategySchema,
    params: ParamsSchema,
    force: z.boolean().optional(),
    /** "Compact as of call N": one pass over the turns before model call N; a variant of its own (`params.asOfCall`). */
    asOfCall: z.number().int().min(0).optional(),
  }),
  cancelCompaction: z.object({ runId: Id }),
  replay: z.object({ variantId: Id }),
  /** What the model would receive under draft parameters that have no variant yet (no summaries, empty state). */
  replayDraft: z.object({ sessionId: Id, strategy: StrategySchema, params: ParamsSchema }),
  /** The export as text; Electron's window then asks main to save it with a native dialog. */
  exportVariant: z.object({ variantId: Id, format: ExportFormatSchema }),
  saveExport: z.object({ fileName: z.string().min(1).max(255), content: z.string() }),
  getSettings: z.object({}),
  setSettings: SettingsInputSchema,
} as const;

export type OperationName = keyof typeof InputSchemas;
export type OperationInput<K extends OperationName> = z.infer<(typeof InputSchemas)[K]>;

export interface SessionInfo {
  id: number;
  title: string;
  format: string;
  sourceFile: string;
  createdAt: string;
  startedAt: string | null;
  parentSessionId: number | null;
  agentId: string | null;
  tokenizer: string;
  turns: number;
  tokens: number;
  toolCalls: number;
  externalCompactions: number;
}

export interface ExternalCompactionInfo {
  id: number;
  trigger: string;
  preTokens: number | null;
  summaryText: string;
  summaryTokenCount: number;
  firstPosition: number;
  lastPosition: number;
  boundaryPosition: number;
  /** The baseline ledger: the source tool's own summary over the turns it replaced (filled by getSession and `ledger`). */
  ledger?: SummaryLedger | null;
}

export interface SessionDetail extends SessionInfo {
  externalCompactions_: ExternalCompactionInfo[];
  children: SessionInfo[];
}

export interface ImportReport {
  sessions: Array<SessionInfo & { duplicate: boolean }>;
}

/** One full-text match: the turn and a snippet with the match in [brackets]. */
export interface SearchHit {
  sessionId: number;
  turnId: number;
  position: number;
  role: Role;
  snippet: string;
}

/** A summary whose text matches a search ("did `dialyzer` survive?"). */
export interface SummarySearchHit {
  sessionId: number;
  summaryId: number;
  variantId: number;
  /** The user's name for the variant, if any. */
  variantName: string | null;
  strategy: StrategyName;
  /** The variant's parameters (a click loads the variant). */
  params: Record<string, number | string | boolean>;
  kind: SummaryKind;
  depth: number;
  firstPosition: number;
  lastPosition: number;
  /** The replay run that made it, and the call it was made at; null for a pass (Compact) summary. */
  replayRunId: number | null;
  callIndex: number | null;
  /** Folded into a parent or superseded: the model no longer sees it. */
  compacted: boolean;
  /** FTS snippet, matches in [ ]. */
  snippet: string;
}

/** `search`: hits in turns and, beside them, in every variant's summaries. */
export interface SearchResults {
  turns: SearchHit[];
  summaries: SummarySearchHit[];
}

/** Turn planning data as parallel arrays (index = position). */
export interface TurnMetaColumns {
  ids: number[];
  roles: Role[];
  tokens: number[];
  chars: number[];
  cycleStart: number[];
}

export interface VariantInfo {
  id: number;
  sessionId: number;
  strategy: StrategyName;
  params: Record<string, number | string | boolean>;
  summarizer: SummarizerConfig & { promptVersion: string };
  state: VariantState;
  createdAt: string;
  /** The user's name for the variant (editable in the variant table); null until named. */
  name: string | null;
  summaries: number;
  runs: number;
  /**
   * Facts of the compacted spans the variant's summaries kept, per category (the loss
   * ledger); absent or null until the ledger computed it.
   */
  retention?: Record<FactCategory, { kept: number; total: number }> | null;
  /**
   * Beside it, the text-level score of the same spans (shared/retention/text.ts: their
   * concrete strings searched as written in what the model receives); absent or null when
   * not measured (a ledger stored before it was).
   */
  textRetention?: TextRetention | null;
  /** The newest probe evaluation of the variant (`evaluate`, electron/engine/evaluate.ts); absent or null when never evaluated. */
  probes?: ProbeEvaluationSummary | null;
}

/** The loss ledger's fact categories (shared/facts/types.ts). */
export type RetentionCategory = FactCategory;

/**
 * A row of the variant table (`listVariants`): the variant and what its runs add up to.
 * Firings, tokens sent, summarizer calls and cost are the totals of its latest completed
 * replay (`latestReplayRunId`); null when it has never been replayed.
 */
export interface VariantListing extends VariantInfo {
  latestReplayRunId: number | null;
  firings: number | null;
  /** Prompt tokens sent to the model over every call of the replay (cached or not). */
  tokensSent: number | null;
  summarizerCalls: number | null;
  /** Model calls with caching plus the summarizer's calls, USD. */
  costUsd: number | null;
  /** The newest run of any kind: when it ended (or started, while running), its kind and status. */
  lastRun: { at: string; kind: 'pass' | 'replay'; status: RunStatus } | null;
}

export interface SummaryInfo extends ExistingSummary {
  variantId: number;
  runId: number | null;
  kind: SummaryKind;
  text: string;
  tier: SummaryTier;
  model: string;
  promptVersion: string;
  cacheHit: boolean;
  /** Turn ids a leaf covers directly (empty for condensed). */
  turnIds: number[];
  createdAt: string;
  /** The loss ledger of this summary over the span it covers (null: written before migration 006). */
  ledger?: SummaryLedger | null;
}

export type RunStatus = 'running' | 'completed' | 'skipped' | 'failed' | 'cancelled';

export interface RunInfo {
  id: number;
  variantId: number;
  /** 'pass': a compaction of the variant; 'replay': the session walked call by call. */
  kind: 'pass' | 'replay';
  status: RunStatus;
  startedAt: string;
  endedAt: string | null;
  params: Record<string, unknown>;
  stats: Record<string, unknown>;
  error: string | null;
  events: Array<{ at: string; kind: string; data: Record<string, unknown> }>;
}

export interface ReplayMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** Where the message comes from: an original turn, a summary, or synthetic glue. */
  origin: { kind: 'turn'; turnId: number; position: number } | { kind: 'summary'; summaryId: number } | { kind: 'synthetic' };
  blocks: Turn['blocks'];
  tokens: number;
  /**
   * Present when the replay merged several consecutive same-side items into this one
   * message (Anthropic alternation): every origin, in order; `origin` is the first.
   */
  parts?: Array<ReplayMessage['origin']>;
}

export interface Replay {
  variantId: number;
  messages: ReplayMessage[];
  totalTokens: number;
}

/** A variant's replay as a file in one export format (`exportVariant`; the CLI's `export --json` without -o). */
export interface ExportFile {
  fileName: string;
  mimeType: string;
  content: string;
}

export interface Settings {
  summarizer: SummarizerConfig;
  hasApiKey: boolean;
  concurrency: number;
  tokenizer: 'o200k_base' | 'cl100k_base';
  /** The user's prices (shared/cost/prices.ts); empty when none are set. */
  prices: UserPrices;
  /** The user's context windows by model name (shared/cost/windows.ts); empty when none are set. */
  contextWindows: UserContextWindows;
  /**
   * Present when the API key cannot be stored encrypted (Electron on a Linux session without
   * a keyring, where safeStorage would fall back to plain text): the key is then kept in
   * memory until the app quits, and `warning` says why and what to do. Shown in Settings.
   */
  keyStorage?: { encrypted: false; warning: string };
}

/**
 * What the model really saw, per call (shared/usage/): the usage the source reported and
 * the overhead fit `reported ≈ a + b × transcript` over the trusted calls before the
 * session's first external compaction (null with fewer than 2 such calls).
 */
export interface SessionUsage {
  calls: ModelCallUsage[];
  overhead: OverheadFit | null;
  /** Transcript tokens before each call (sum of stored turn token counts at positions < call.position); parallel to `calls`. */
  transcriptBefore: number[];
  /** The session's child sessions' usage (the source tool's compaction calls, its subagents): the source baseline counts them. */
  children: SourceChildUsage[];
}

/** A child session's recorded calls, as the source baseline prices them. */
export interface SourceChildUsage {
  sessionId: number;
  /** 'compaction': the source tool's own summarization call (Claude Code's compaction agent); 'subagent': a session the model started. */
  kind: 'compaction' | 'subagent';
  title: string;
  /** A compaction call: the boundary of the compaction it produced (its marker); else null. */
  boundaryPosition: number | null;
  calls: ModelCallUsage[];
  /** Tokens of the visible output of each call's assistant turn (parallel to `calls`): an output figure under half of it is a streaming placeholder. */
  visibleOutput: number[];
}

/** The result type of each operation. */
export interface OperationResults {
  listSessions: SessionInfo[];
  getSession: SessionDetail;
  importText: ImportReport;
  importTexts: ImportReport;
  importPaths: ImportReport;
  /** `deleted`: the session left every listing; its rows go in batches in the background (job-progress / job-finished, kind 'delete'). */
  deleteSession: { deleted: boolean };
  cancelJob: { cancelled: boolean };
  listTurns: Turn[];
  turnMetas: TurnMetaColumns;
  sessionUsage: SessionUsage;
  startReplay: { runId: number; variantId: number };
  getReplayRun: ReplayTimeline;
  replayContextAt: Replay & { call: number; position: number; summaries: SummaryInfo[] };
  compareVariants: Comparison;
  search: SearchResults;
  listSweeps: SweepInfo[];
  getSweep: SweepDetail;
  listVariants: VariantListing[];
  findVariant: VariantInfo | null;
  saveVariant: VariantInfo;
  renameVariant: VariantInfo;
  deleteVariant: { deleted: boolean };
  listSummaries: SummaryInfo[];
  listRuns: RunInfo[];
  /** `rerunQueued`: two-line's one task per conversation (session, variant); the request will run once more after run `runId` of the same variant. */
  startCompaction: { runId: number; variantId: number; rerunQueued?: boolean };
  cancelCompaction: { cancelled: boolean };
  replay: Replay;
  replayDraft: Omit<Replay, 'variantId'> & { variantId: null };
  exportVariant: ExportFile;
  saveExport: { savedTo: string | null };
  getSettings: Settings;
  setSettings: Settings;
}

// ---- The CLI's --json documents (electron/cli/commands/): results that cross the process's stdout. ----

/** A turn as a listing shows it: counts and a one-line text preview. */
export interface TurnPreview {
  position: number;
  role: Role;
  tokens: number;
  chars: number;
  preview: string;
}

/** `show <session> --json`: the session (with the importer's metadata), its recorded compactions, children and a page of turns. */
export interface SessionListing {
  session: SessionInfo & { metadata: Record<string, unknown> };
  /** ExternalCompactionInfo without the row id. */
  externalCompactions: Array<Omit<ExternalCompactionInfo, 'id'>>;
  children: SessionInfo[];
  turns: TurnPreview[];
}

/** One summary's row of `ledger <session> --json`. */
export interface LedgerReportRow {
  summaryId: number;
  kind: SummaryKind;
  depth: number;
  firstPosition: number;
  lastPosition: number;
  tokens: number;
  /** Folded into a parent or superseded (its parent's ledger covers its span). */
  compacted: boolean;
  ledger: SummaryLedger | null;
}

/**
 * `ledger <session> [--variant V] --json`: the loss ledger per summary of each variant, the
 * variant's retention, and the baseline of the source tool's own compactions.
 */
export interface LedgerReport {
  sessionId: number;
  baselines: Array<{ firstPosition: number; lastPosition: number; summaryTokenCount: number; ledger: SummaryLedger | null }>;
  /** `textRetention`: the text-level score of the same summaries beside the fact retention (null: not measured). */
  variants: Array<{ variantId: number; strategy: StrategyName; retention: Record<FactCategory, { kept: number; total: number }> | null; textRetention: TextRetention | null; summaries: LedgerReportRow[] }>;
}

/** `export --output FILE --json`: the file written instead of its content. */
export interface SavedExportFile {
  fileName: string;
  mimeType: string;
  /** Absolute path written. */
  savedTo: string;
  bytes: number;
}

/**
 * `plan --json`: the planner's decision for a session (no summarizer call, no write).
 * `variantId` is the existing variant planned against, null when it would be new.
 */
export interface PlanReport extends Plan<Record<string, number>> {
  sessionId: number;
  variantId: number | null;
  /** What `compact` (with or without --force) would do with this plan: shared/strategies/index.ts `compactOutcome`. */
  outcome?: { runs: boolean; tokensAfter: number; note: string | null };
  /** `--set` values the CLI fitted to their specs (shared/strategies/params.ts `clampParams`); absent when none. */
  paramNotes?: ParamNote[];
}

/** The API as the renderer sees it: one async function per operation. */
export type StudioApi = {
  [K in OperationName]: (input: OperationInput<K>) => Promise<OperationResults[K]>;
};

/** The long jobs besides passes that run in the worker. */
export type JobKind = 'import' | 'delete';

/** Progress and completion of passes, imports and deletes, pushed from main to the window. */
export type StudioEvent =
  | { type: 'run-progress'; runId: number; variantId: number; done: number; total: number; tokens: number; message?: string }
  | { type: 'run-finished'; runId: number; variantId: number; status: RunStatus; stats: Record<string, unknown>; error: string | null }
  /**
   * An import (`jobId` of its request) or a delete (`delete-<sessionId>`) in the worker:
   * `done` of `total` (turns written, total 0 = not known ahead; rows deleted of rows).
   */
  | { type: 'job-progress'; jobId: string; kind: JobKind; done: number; total: number; message: string }
  | { type: 'job-finished'; jobId: string; kind: JobKind; status: 'completed' | 'failed' | 'cancelled'; error: string | null }
  | { type: 'sessions-changed' }
  /** Something the window should say that belongs to no request: a write waiting for another process. */
  | { type: 'notice'; kind: 'info' | 'error'; title: string; message?: string }
  /** Electron: a native menu item the window carries out itself (only it knows the current variant). */
  | { type: 'menu-command'; command: 'export' | 'compact' };

/** Errors cross the boundary as data and are re-thrown on the renderer side. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string } };

export const OPERATIONS = Object.keys(InputSchemas) as OperationName[];

/**
 * What the preload exposes on window.studio: one function per operation (each sends
 * only its own channel, `studio:<op>`), never a raw ipcRenderer.
 */
export type PreloadBridge = {
  [K in OperationName]: (input: OperationInput<K>) => Promise<Envelope<OperationResults[K]>>;
} & {
  /** Subscribes to pushed events; returns the unsubscribe function. */
  onEvent(listener: (event: StudioEvent) => void): () => void;
  /** Electron only: file path of a dropped File (webUtils.getPathForFile). */
  pathForFile?(file: unknown): string;
};

export class StudioError extends Error {
  constructor(
    public readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'StudioError';
  }
}

/** Per model call of a replay, as parallel arrays (index = call). */
export interface ReplayCallColumns {
  position: number[];
  timestampMs: Array<number | null>;
  /** Raw transcript tokens before the call (no compaction). */
  transcript: number[];
  /** What the model received under the variant (view + overhead). */
  context: number[];
  cacheRead: number[];
  cacheWrite: number[];
  uncached: number[];
  output: number[];
  costUsd: number[];
  fired: boolean[];
}

/** One firing of a replay (the CLI's `events`). */
export interface ReplayEventInfo {
  call: number;
  /** Position of the assistant turn of that call. */
  turn: number;
  kind: 'fire' | 'commit';
  reason: string;
  contextBefore: number;
  contextAfter: number;
  /**
   * Spans of turns this firing compacted: one per summary made over turns (a dag's leaves; a
   * condensation of summaries is no new span), one for a model-free firing's dropped or masked range.
   */
  spans: number;
  summaryIds: number[];
  maxDepth: number;
  summarizerCalls: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  latencyMs: number;
  /**
   * A commit (two-line's background pass landing): the call where its pass was scheduled and
   * summarized. Its summarizer figures above are that pass's (an abandoned one's included).
   */
  scheduledAt?: number;
  /**
   * The loss ledger of this firing: the facts of the turns it compacted (summarized, masked or
   * dropped, or moved into a condensation) against the whole context the model receives at the
   * call right after it (shared/replay/firing-ledger.ts); null when it compacted no turn.
   */
  ledger?: SummaryLedger | null;
}

/** One model's share of a figure. `known` false: no price was found and its calls count $0 in `costUsd`. */
export interface ModelCostLine {
  model: string;
  calls: number;
  costUsd: number;
  known: boolean;
}

/** A series whose context exceeds its model's window: it could not have run. */
export interface Infeasibility {
  /** The window it exceeds (tokens) and the model whose window that is. */
  window: number;
  model: string;
  /** The first call (index) above the window, and its context. */
  atCall: number;
  context: number;
  /** "infeasible: exceeds N tokens at call K". */
  message: string;
}

export interface ReplayTotals {
  modelCalls: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  /** Model calls' cost with prompt caching (shared/cost/caching.ts). */
  costUsd: number;
  summarizerCostUsd: number;
  peakContext: number;
  firings: number;
  maxDepth: number;
  /** Cost per model (the calls at each model, priced at it; the summarizer's calls under its model). Absent in timelines stored before it existed. */
  byModel?: ModelCostLine[];
  /** Calls no price covers (counted $0 in `costUsd`): the figure is then incomplete. */
  unpriced?: { calls: number; models: string[]; message: string } | null;
  /** False when `unpriced` is set: `costUsd` is a lower bound, never the cost. */
  complete?: boolean;
  /** Where the series exceeds its model's context window; its cost is then what it would have cost. */
  infeasible?: Infeasibility | null;
}

/** One line of the source's recorded cost: its main session, each compaction call of the source tool, each subagent. */
export interface SourceCostLine {
  kind: 'main' | 'compaction' | 'subagent';
  sessionId: number;
  label: string;
  calls: number;
  costUsd: number;
  byModel: ModelCostLine[];
  /** Calls whose last recorded `output_tokens` is under half their visible output: a streaming placeholder, a floor. */
  placeholderOutputCalls: number;
  /** Calls with placeholder input figures (shared/usage/placeholder.ts): not priced. */
  placeholderInputCalls: number;
}

/** A compaction the source tool itself made, with the app's context estimate at the call before it. */
export interface SourceCompactionEvent {
  call: number;
  turn: number;
  reason: string;
  contextBefore: number;
  preTokens: number | null;
  /** The baseline ledger: the source tool's own summary over the turns it replaced. */
  ledger?: SummaryLedger | null;
}

export interface ReplayTimeline {
  runId: number;
  variantId: number;
  sessionId: number;
  strategy: StrategyName;
  params: Record<string, number | string | boolean>;
  status: RunStatus;
  /** How context was measured: a + b × view tokens, fitted from reported usage or a parameter. */
  contextModel: { a: number; b: number; source: 'fit' | 'parameter' };
  /**
   * Prices: each call at the model the source used for it (`model`: the session's most used,
   * for the summary line; `models`: every one the calls use, in order of first use), and
   * whether the price table knows them.
   */
  pricing: { model: string; known: boolean; ttl: '5m' | '1h'; models?: string[] };
  /** Each call's model (index into `pricing.models`), in call order. */
  callModel?: number[];
  /** The context window per model the feasibility checks use (tokens), and where each comes from. */
  windows?: Array<{ model: string; tokens: number; from: 'override' | 'user' | 'table' | 'default' }>;
  lines: Array<{ label: string; tokens: number }>;
  note: string | null;
  calls: ReplayCallColumns;
  events: ReplayEventInfo[];
  totals: ReplayTotals;
  baselines: {
    /** No compaction: the whole transcript at every call; where it would overflow the window. */
    none: { context: number[]; totals: ReplayTotals; contextWindow: number; overflowAtCall: number | null };
    /**
     * The source tool's own compactions: the recorded context per call where reported, its
     * compactions as events. `totals` is what the source recorded: the main session's calls,
     * the source tool's own compaction calls and (when `includesSubagents`) its subagents' calls,
     * one line each in `lines`. `simulated`: the same compactions through the app's usage model
     * (context model and caching), so `usageModelError` = simulated ÷ recorded − 1 over the main
     * and compaction calls is the error bar of every simulated figure on this session.
     */
    source: {
      context: Array<number | null>;
      events: SourceCompactionEvent[];
      totals: ReplayTotals;
      lines?: SourceCostLine[];
      includesSubagents?: boolean;
      simulated?: { totals: ReplayTotals; recordedUsd: number; usageModelError: number | null };
      /** Calls (main, compaction and counted subagents) whose final output_tokens is a streaming placeholder. */
      placeholderOutputCalls?: number;
    };
  };
}
