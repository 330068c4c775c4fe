/**
 * The extractive summarizer: offline, deterministic, model-free. The default summarizer,
 * the two-line strategy's emergency digest and the last rung of the tier ladder.
 *
 * It writes a hand-off an agent could continue from, from its own reading of the turns
 * (read-turns.ts; never the loss ledger's extractor, which grades it), in this order
 * (sections.ts): Goal and constraints · Done · In progress · Next step · Decisions and why ·
 * Errors and how they were resolved · Files · Commands and results · Key identifiers.
 * Entries are ranked (the hand-off sections first, then recency and mentions) and taken until
 * the token budget is full, then written in time order within their section. Plain text.
 *
 * Condensation: each child summary is read back into notes from its text (summary-facts.ts)
 * and the notes merged in time order (notes.ts mergeNotes): the lists are unions, the state of
 * the work (task, state, standing error, intent, todos, remaining) the newest child's. A leaf's
 * prior summary carries forward its goal, its constraints, the state of the work when the span
 * has none, and its open errors (which the span may resolve).
 *
 * Guarantees (tested): never empty (a header line is always written), never the source
 * verbatim (the header is not in the source), bounded (at most the target's tokens, and at
 * most half the span's), linear in the input size, and it fills its budget unless it runs out
 * of material, which its header and stats say.
 */
import type { AbortSignalLike, SummarizeItem, SummarizeRequest, Summarizer, SummarizeResult } from '../strategies/summarizer.js';
import { emptyNotes, mergeNotes, type HandoffNotes } from './notes.js';
import { readTurns } from './read-turns.js';
import { DETAIL_ARROW, FILE_CREATED, INLINE_SEPARATOR, LINE_PREFIX, STILL_OPEN, SUMMARY_SECTIONS, type SummarySection } from './sections.js';
import { summaryNotes } from './summary-facts.js';

/** Version of the extraction rules; part of the cache key and the variant identity. */
export const EXTRACTIVE_PROMPT_VERSION = 'extractive-3';
export const EXTRACTIVE_MODEL = 'extractive';

/** Hard ceiling, whatever the target: the summary stays bounded. */
export const MAX_BUDGET_TOKENS = 16_000;
/** Entries considered per section: past this a list stops helping the reader (and keeps the fill linear). */
const MAX_CANDIDATES_PER_SECTION = 160;
/** A summary under this share of its budget with every candidate taken has run out of material. */
const OUT_OF_MATERIAL_SHARE = 0.8;

/** Counts a text's tokens: the real tokenizer when the caller has one (electron/), else `estimateTokens`. */
export type TokenCounter = (text: string) => number;

/**
 * Tokens of a text, estimated without a tokenizer (shared/ has none): one per word piece
 * (a camelCase or snake_case part), one per 1–3 digits, one per other symbol. BPE
 * tokenizers merge more than this, so the estimate errs high and "never over the target"
 * holds by the real count too (tested with o200k on the fixtures).
 */
export function estimateTokens(text: string): number {
  // The pieces of /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d{1,3}|[^\sA-Za-z\d]/g (a piece over 9
  // characters counts 2), found by one scan of the character codes: matchAll allocated a match
  // per piece, ~1 GB over a rolling replay of 100,000 turns (test/node/estimate-tokens.test.ts
  // holds the scan to the expression).
  const len = text.length;
  let n = 0;
  let i = 0;
  while (i < len) {
    const c = text.charCodeAt(i);
    if (isLower(c) || (isUpper(c) && i + 1 < len && isLower(text.charCodeAt(i + 1)))) {
      // [A-Z]?[a-z]+
      let j = i + 1;
      while (j < len && isLower(text.charCodeAt(j))) j++;
      n += j - i > 9 ? 2 : 1;
      i = j;
    } else if (isUpper(c)) {
      // [A-Z]+(?![a-z]): an upper-case run gives its last letter to a lower-case word after it.
      let j = i + 1;
      while (j < len && isUpper(text.charCodeAt(j))) j++;
      if (j < len && isLower(text.charCodeAt(j))) j--;
      n += j - i > 9 ? 2 : 1;
      i = j;
    } else if (c >= 48 && c <= 57) {
      // \d{1,3}
      let j = i + 1;
      while (j < len && j < i + 3 && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
      n += 1;
      i = j;
    } else {
      // [^\sA-Za-z\d]: one piece per UTF-16 code unit that is not white space.
      if (!isWhiteSpace(c)) n += 1;
      i++;
    }
  }
  // On the fixtures' leaf summaries the piece count is 0.88–1.3× o200k's (mean 1.06): with
  // 10% added it is rarely under, and a summarizer given the real tokenizer
  // (`countTokens`) checks the written text and drops entries until it fits.
  return Math.ceil(n * 1.1);
}

const isLower = (c: number) => c >= 97 && c <= 122;
/** JavaScript's \s (String.prototype.trim's white space and line terminators). */
function isWhiteSpace(c: number): boolean {
  if (c < 160) return c === 32 || (c >= 9 && c <= 13);
  return c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
const isUpper = (c: number) => c >= 65 && c <= 90;

/** The token budget of a summary: the target, halved on the aggressive tier, capped. */
export function budgetTokens(targetTokens: number, tier: SummarizeRequest['tier']): number {
  return Math.min(MAX_BUDGET_TOKENS, Math.floor(Math.max(0, targetTokens) * (tier === 'aggressive' ? 0.5 : 1)));
}


/** One line (or one inline value of a grouped line) a summary may hold. */
interface Entry {
  section: SummarySection;
  /** Inline entries share one line per group: "spec spotter-gqc.6: a; b", the identifiers. */
  group?: string;
  text: string;
  /** Time order within the section. */
  order: number;
  rank: number;
  tokens: number;
}

/** How much a section's entry weighs before recency and mentions: the hand-off first. */
const SECTION_WEIGHT: Record<SummarySection, number> = {
  'Goal and constraints': 9,
  Done: 8,
  'In progress': 12,
  'Next step': 11,
  'Decisions and why': 6,
  'Errors and how they were resolved': 7,
  Files: 5,
  'Commands and results': 5,
  'Key identifiers': 3,
};

/** Summary statistics beside the text: what the budget was and whether the material ran out. */
export interface ExtractiveStats {
  targetTokens: number;
  budgetTokens: number;
  /** Tokens of the text written (by the counter given, else estimated). */
  tokens: number;
  candidates: number;
  chosen: number;
  /** Every candidate was taken and the text is well under its budget: the span had no more to say. */
  outOfMaterial: boolean;
}

/**
 * An extractive summary: its text and stats. It carries no structured facts (`facts` is never
 * set: the loss ledger's facts are not the summarizer's), and a condensation reads its
 * children back from their text; the field stays in the shape callers destructure.
 */
export interface ExtractiveSummary {
  text: string;
  stats: ExtractiveStats;
  facts?: undefined;
}

/**
 * The notes of a request's input, in time order: runs of turns are read, child summaries are
 * read back from their text. A leaf's prior summary contributes what is still relevant.
 */
export function requestNotes(req: Omit<SummarizeRequest, 'tier'>): HandoffNotes {
  const parts: HandoffNotes[] = [];
  const carriesPrior = (req.purpose === 'rolling' || req.purpose === 'watermark' || req.purpose === 'digest') && req.priorSummary;
  if (carriesPrior) parts.push(summaryNotes(req.priorSummary!));
  let run: SummarizeItem[] = [];
  const flush = () => {
    if (run.length > 0) parts.push(readTurns(run));
    run = [];
  };
  for (const item of req.items) {
    if (item.kind === 'turn') {
      run.push(item);
      continue;
    }
    flush();
    parts.push(summaryNotes(item.text));
  }
  flush();
  if (!carriesPrior && req.priorSummary) {
    // Continuity (leaf, chunk): the prior stays visible to the model, so only what the span
    // needs carries forward: the goal and constraints, the state of the work (the span's own
    // wins when it has one) and the errors still open, which the span may resolve.
    const prior = summaryNotes(req.priorSummary);
    const carried = { ...emptyNotes(1), requests: prior.requests, constraints: prior.constraints, task: prior.task, state: prior.state, intent: prior.intent, todos: prior.todos, remaining: prior.remaining, standing: prior.standing, errors: prior.errors.filter((e) => !e.resolution) };
    return mergeNotes([carried, ...parts]);
  }
  return parts.length === 0 ? emptyNotes(0) : mergeNotes(parts);
}

const filesLine = (f: HandoffNotes['files'][number]) => {
  const ops = [f.edited > 0 ? `edited ${f.edited}×` : '', f.written > 0 ? `written ${f.written}×` : '', f.read > 0 ? `read ${f.read}×` : ''].filter(Boolean).join(', ');
  const kind = f.created ? FILE_CREATED : f.edited + f.written > 0 ? 'modified' : '';
  const detail = [kind, ops].filter(Boolean).join('; ');
  return detail ? `${f.path} (${detail})` : f.path;
};
const commandEntry = (c: HandoffNotes['commands'][number]) => {
  const runs = c.runs > 1 ? ` (ran ${c.runs}×${c.failures > 0 ? `, ${c.failures} failed` : ''})` : '';
  return `\`${c.command}\`${DETAIL_ARROW}${c.result}${runs}`;
};
export const errorEntry = (e: HandoffNotes['errors'][number]) => `${e.message} (${e.source}) — ${e.resolution ? `resolved: ${e.resolution}` : STILL_OPEN}`;

/** Every entry a summary of these notes could hold, with its rank and cost. */
function candidates(n: HandoffNotes, count: TokenCounter): Entry[] {
  const out: Entry[] = [];
  const span = Math.max(1, n.itemCount - 1);
  const push = (section: SummarySection, text: string, order: number, bonus = 0, mentions = 1, group?: string) =>
    out.push({ section, group, text, order, rank: SECTION_WEIGHT[section] + bonus + (3 * order) / span + Math.log2(1 + mentions), tokens: count(text) + (group ? 1 : 2) });
  // The latest request is what the work is for: it outranks everything but nothing.
  const latest = n.requests.reduce((m, r) => Math.max(m, r.order), -1);
  for (const r of n.requests) push('Goal and constraints', `${LINE_PREFIX.request}${r.text}`, r.order, r.order === latest ? 10 : 2);
  for (const c of n.constraints) {
    const at = c.text.indexOf(': ');
    const value = c.text.slice(at + 2);
    // A spec's file list is what Files and Next step show; its labels, names and figures are what nothing else keeps.
    const isPath = /^`[\w./-]+\/[\w.-]+\.\w+`$/.test(value);
    push('Goal and constraints', value, c.order, isPath ? -6 : -3, c.mentions, `${LINE_PREFIX.spec}${c.text.slice(0, at)}`);
  }
  for (const c of n.commits) push('Done', `${LINE_PREFIX.commit}${c.text}`, c.order, 1);
  for (const c of n.closed) push('Done', `${LINE_PREFIX.closed}${c.text}`, c.order);
  for (const t of n.testsPassed) push('Done', `${LINE_PREFIX.tests}${t.text}`, t.order, -1);
  if (n.task) push('In progress', `${LINE_PREFIX.task}${n.task.text}`, n.task.order, 4);
  if (n.state) push('In progress', `${LINE_PREFIX.state}${n.state.text}`, n.state.order, 3);
  if (n.standing) push('In progress', `${LINE_PREFIX.standing}${n.standing.text}`, n.standing.order, 3);
  if (n.intent) push('Next step', `${LINE_PREFIX.intent}${n.intent.text}`, n.intent.order, 4);
  n.todos.forEach((t, i) => {
    if (t.status !== 'completed') push('Next step', `${LINE_PREFIX.todo}${t.status === 'in_progress' ? '(in progress) ' : ''}${t.text}`, n.itemCount + i / 1e4, 1);
  });
  for (const r of n.remaining) push('Next step', `${LINE_PREFIX.remaining}${r.text}`, r.order, 0);
  // Without a stated intent, a todo or a subtask, the next step follows from the state itself.
  if (!n.intent && !n.todos.some((t) => t.status !== 'completed') && n.remaining.length === 0) {
    if (n.standing) push('Next step', `${LINE_PREFIX.intent}resolve ${n.standing.text.replace(/ \([^()]*\)$/, '')}`, n.standing.order, 2);
    else if (n.task) push('Next step', `${LINE_PREFIX.intent}continue ${n.task.text}`, n.task.order, 2);
  }
  for (const d of n.decisions) push('Decisions and why', d.text, d.order, 0, d.mentions);
  for (const e of n.errors) push('Errors and how they were resolved', errorEntry(e), e.order, e.resolution ? 0 : 2);
  for (const f of n.files) push('Files', filesLine(f), f.order, f.created ? 1 : f.edited + f.written > 0 ? 0.5 : -1.5, f.read + f.edited + f.written);
  for (const c of n.commands) push('Commands and results', commandEntry(c), c.order, c.ok ? 0 : 1, c.runs);
  for (const id of n.identifiers) push('Key identifiers', id.text, id.order, 0, id.mentions, 'names');
  // Linear fill: only the best few per section are candidates at all.
  const bySection = new Map<SummarySection, Entry[]>();
  for (const e of out) bySection.set(e.section, [...(bySection.get(e.section) ?? []), e]);
  const kept: Entry[] = [];
  for (const list of bySection.values()) kept.push(...(list.length <= MAX_CANDIDATES_PER_SECTION ? list : list.sort(byRank).slice(0, MAX_CANDIDATES_PER_SECTION)));
  return kept;
}

const byRank = (a: Entry, b: Entry) => b.rank - a.rank || a.order - b.order || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);

/** Chooses entries by rank until `budget` tokens are spent (titles and group prefixes counted when they open). */
function fill(entries: Entry[], headerTokens: number, budget: number, count: TokenCounter): Entry[] {
  let remaining = budget - headerTokens - 1;
  const chosen: Entry[] = [];
  const open = new Set<string>();
  entries.sort(byRank);
  for (const e of entries) {
    if (remaining <= 0) break;
    let cost = e.tokens;
    if (!open.has(e.section)) cost += count(`${e.section}:`) + 1;
    if (e.group && !open.has(`${e.section}/${e.group}`)) cost += count(e.group) + 3;
    if (cost > remaining) continue;
    remaining -= cost;
    open.add(e.section);
    if (e.group) open.add(`${e.section}/${e.group}`);
    chosen.push(e);
  }
  return chosen;
}

/** The chosen entries as text: sections in order, entries in time order, groups on one line each. */
function render(chosen: readonly Entry[], header: string): string {
  const lines = [header];
  for (const section of SUMMARY_SECTIONS) {
    const mine = chosen.filter((e) => e.section === section).sort((a, b) => a.order - b.order || (a.text < b.text ? -1 : 1));
    if (mine.length === 0) continue;
    lines.push(`${section}:`);
    const groups = new Map<string, string[]>();
    for (const e of mine) {
      if (!e.group) {
        lines.push(`- ${e.text}`);
        continue;
      }
      if (!groups.has(e.group)) {
        groups.set(e.group, []);
        lines.push(`\u0000${e.group}`);
      }
      groups.get(e.group)!.push(e.text);
    }
    // A group's line sits where its first value would.
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i].startsWith('\u0000')) continue;
      const g = lines[i].slice(1);
      lines[i] = g === 'names' ? `- ${groups.get(g)!.join(INLINE_SEPARATOR)}` : `- ${g}: ${groups.get(g)!.join(INLINE_SEPARATOR)}`;
    }
  }
  return lines.join('\n');
}

/**
 * The extractive summary of a request and its stats. Pure and deterministic. For 'rolling',
 * 'watermark' and 'digest' the prior summary is part of the input (the new summary replaces
 * it); for 'leaf' and 'chunk' it is continuity context (see requestNotes).
 */
export function extractiveSummarize(req: SummarizeRequest, countTokens?: TokenCounter): ExtractiveSummary {
  const count = countTokens ?? estimateTokens;
  const notes = requestNotes(req);
  // A summary compresses: at most half the span, whatever the target (a tiny span gives a
  // tiny summary, and the tier ladder's "shorter than the input" check passes). Summaries in
  // the input (children, a rolling prior) are already dense: up to 90% of their tokens.
  let cap = 0;
  for (const i of req.items) cap += (estimateTokens(i.text) + 2) * (i.kind === 'summary' ? 0.9 : 0.5);
  if ((req.purpose === 'rolling' || req.purpose === 'watermark' || req.purpose === 'digest') && req.priorSummary) cap += estimateTokens(req.priorSummary) * 0.9;
  const budget = Math.min(budgetTokens(req.targetTokens, req.tier), Math.floor(cap));
  const n = req.items.length;
  const base = `[${req.purpose} summary of ${n} ${req.purpose === 'condensed' ? 'summaries' : n === 1 ? 'item' : 'items'}`;
  const all = candidates(notes, count);
  const total = all.length;
  const chosen = fill(all, count(`${base}]`), budget, count);
  const headerFor = (tokens: number, exhausted: boolean) => (exhausted ? `${base}; ran out of material at ${tokens} of ${budget} tokens]` : `${base}]`);
  let text = render(chosen, headerFor(0, false));
  // Entries were costed one by one; the written text is what must fit. With the real
  // tokenizer the lowest-ranked entries go until it does (rarely more than one).
  if (countTokens) {
    chosen.sort(byRank);
    while (chosen.length > 0 && countTokens(text) > Math.max(budget, countTokens(headerFor(0, false)))) {
      chosen.pop();
      text = render(chosen, headerFor(0, false));
    }
  }
  const body = count(text);
  const outOfMaterial = chosen.length === total && body < budget * OUT_OF_MATERIAL_SHARE;
  // The note fits: a summary that ran out of material is well under its budget.
  if (outOfMaterial && count(render(chosen, headerFor(body, true))) <= budget) text = render(chosen, headerFor(body, true));
  return { text, stats: { targetTokens: req.targetTokens, budgetTokens: budget, tokens: count(text), candidates: total, chosen: chosen.length, outOfMaterial } };
}

/** The extractive summary's text alone (two-line's digest, the tier ladder's fallback). */
export function extractiveSummary(req: SummarizeRequest, countTokens?: TokenCounter): string {
  return extractiveSummarize(req, countTokens).text;
}

/**
 * The extractive summarizer behind the common interface (kind and model 'extractive').
 * `countTokens`: the real tokenizer (the app passes o200k's); without it tokens are estimated.
 * It returns no structured facts: a condensation reads its children back from their text.
 */
export function createExtractiveSummarizer(opts?: { countTokens?: TokenCounter }): Summarizer {
  return {
    kind: 'extractive',
    model: EXTRACTIVE_MODEL,
    promptVersion: EXTRACTIVE_PROMPT_VERSION,
    async summarize(req: SummarizeRequest, signal?: AbortSignalLike): Promise<SummarizeResult> {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      return { text: extractiveSummarize(req, opts?.countTokens).text, model: EXTRACTIVE_MODEL, costUsd: 0 };
    },
  };
}

