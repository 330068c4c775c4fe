/**
 * FROZEN COPY of shared/summarize/extractive.ts (with summary-facts.ts and sections.ts beside
 * it) as of prompt version extractive-2, when the summarizer was built on the loss ledger's
 * facts, kept only as the "before" of the benchmarks: bench/pass.ts times the dag pass with
 * it and with the current hand-off summarizer in the same run (the ratio), and bench/summary.ts
 * grades it beside the new one. Not used by the app.
 */
/**
 * The extractive summarizer: offline, deterministic, model-free. The default summarizer,
 * the two-line strategy's emergency digest and the last rung of the tier ladder.
 *
 * Built on facts (shared/facts): the span's facts are extracted once, then
 * written in sections true to their names, in this order (sections.ts):
 *   Goal and requests · State now (the latest todo list, and requests made after it) ·
 *   Files (with what was done to them) · Commands and results · Errors (fixed or not) ·
 *   Decisions (a choice with its reason, never narration) · Key identifiers and figures.
 * Entries are chosen by salience (mentions, recency, user-named, failure: facts/ledger.ts)
 * until the token budget is full, then shown in time order within their section.
 * Plain text: no markup, no escaped characters, no timestamps or request ids.
 *
 * Condensation merges facts, not text: a child summary brings its facts (item.facts, or
 * read back from its text by summary-facts.ts), the union is deduplicated, re-ranked and
 * fitted to the budget; the todo state is the latest child's. A leaf's prior summary
 * carries forward its goal, its todo state (when the span has no newer list) and the
 * facts the span mentions again.
 *
 * Guarantees (tested): never empty (a header line is always written), never the source
 * verbatim (the header is not in the source), bounded (at most the target's estimated
 * tokens, and at most half the span's), linear in the input size.
 */
import type { AbortSignalLike, SummarizeItem, SummarizeRequest, Summarizer, SummarizeResult } from '../../../shared/strategies/summarizer.js';
import { extractFacts } from '../../../shared/facts/extract.js';
import { isJsWhiteSpace } from '../../../shared/facts/patterns.js';
import { mergeFactSets, salience } from '../../../shared/facts/ledger.js';
import type { Decision, Fact, FactSet } from '../../../shared/facts/types.js';
import { DETAIL_ARROW, FIGURES_PREFIX, INLINE_SEPARATOR, NAMES_PREFIX, OPEN_REQUEST_ABOVE, STATE_PREFIX, SUMMARY_SECTIONS, type SummarySection } from './sections.js';
import { summaryFacts } from './summary-facts.js';

/** Version of the extraction rules; part of the cache key and the variant identity. */
export const BASELINE_PROMPT_VERSION = 'extractive-2';
export const EXTRACTIVE_MODEL = 'extractive';

/** Hard ceiling, whatever the target: the summary stays bounded. */
export const MAX_BUDGET_TOKENS = 16_000;
/** Entries considered per section: past this a list stops helping the reader (and keeps the fill linear). */
const MAX_CANDIDATES_PER_SECTION = 120;

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
      if (!isJsWhiteSpace(c)) n += 1;
      i++;
    }
  }
  // On the fixtures' leaf summaries the piece count is 0.88–1.3× o200k's (mean 1.06): with
  // 10% added it is rarely under, and a summarizer given the real tokenizer
  // (`countTokens`) checks the written text and drops entries until it fits.
  return Math.ceil(n * 1.1);
}

const isLower = (c: number) => c >= 97 && c <= 122;
const isUpper = (c: number) => c >= 65 && c <= 90;

/** The token budget of a summary: the target, halved on the aggressive tier, capped. */
export function budgetTokens(targetTokens: number, tier: SummarizeRequest['tier']): number {
  return Math.min(MAX_BUDGET_TOKENS, Math.floor(Math.max(0, targetTokens) * (tier === 'aggressive' ? 0.5 : 1)));
}

/** One line (or one inline name) a summary may hold. */
interface Entry {
  section: SummarySection;
  /** Inline entries of "Key identifiers and figures": names or figures. */
  inline?: 'names' | 'figures';
  text: string;
  /** Time order within the section. */
  order: number;
  salience: number;
  tokens: number;
  /** An unresolved request under State now. */
  asked?: boolean;
  /** What the entry shows: the summary's facts are its chosen entries'. */
  fact?: Fact;
  decision?: Decision;
}

/** What people wrote, without inline-code backticks or bold markers: the summary is plain text. */
const plain = (text: string) => text.replace(/\*\*|`/g, '');

/** A file with what was done to it; "mentioned N×" is left out (being named is what a listed file is). */
const fileLine = (f: Fact) => (f.detail && !f.detail.startsWith('mentioned') ? `${f.text} (${f.detail})` : f.text);

const withDetail = (text: string, detail: string | undefined) => (detail ? `${text}${DETAIL_ARROW}${detail}` : text);

/**
 * The facts of a request's input, in time order: runs of turns are extracted, child
 * summaries bring their facts (or have them read from their text), and the merge keeps the
 * latest todo list. A leaf's prior summary contributes what is still relevant.
 */
export function requestFacts(req: Omit<SummarizeRequest, 'tier'>): FactSet {
  const sets: FactSet[] = [];
  const carriesPrior = (req.purpose === 'rolling' || req.purpose === 'watermark') && req.priorSummary;
  if (carriesPrior) sets.push(summaryFacts(req.priorSummary!));
  let run: SummarizeItem[] = [];
  const flush = () => {
    if (run.length > 0) sets.push(extractFacts(run));
    run = [];
  };
  for (const item of req.items) {
    if (item.kind === 'turn') {
      run.push(item);
      continue;
    }
    flush();
    sets.push(item.facts ?? summaryFacts(item.text));
  }
  flush();
  if (!carriesPrior && req.priorSummary) {
    // Continuity (leaf, chunk): the prior stays visible to the model, so only what is still
    // relevant carries forward: its goal, its todo state when the span has none, and the
    // facts the span names again (their history: mentions, outcomes).
    const prior = summaryFacts(req.priorSummary);
    const span = sets.length === 1 ? sets[0] : mergeFactSets(sets, { todos: 'latest' });
    const named = new Set(span.facts.map((f) => `${f.category}\u0000${f.key}`));
    const spanHasTodos = span.facts.some((f) => f.category === 'todo');
    const carried = prior.facts.filter((f) => f.category === 'request' || (f.category === 'todo' && !spanHasTodos) || named.has(`${f.category}\u0000${f.key}`));
    return mergeFactSets([{ facts: carried, itemCount: 1 }, span], { todos: 'latest' });
  }
  return sets.length === 1 ? sets[0] : mergeFactSets(sets, { todos: 'latest' });
}

/** Every entry a summary of these facts could hold, with its salience and cost. */
function candidates(set: FactSet, count: TokenCounter): Entry[] {
  const n = set.itemCount;
  const out: Entry[] = [];
  const todos = set.facts.filter((f) => f.category === 'todo');
  const lastTodoItem = todos.reduce((m, f) => Math.max(m, f.lastItem), -1);
  const requests = set.facts.filter((f) => f.category === 'request');
  // Unresolved requests: asked after the latest todo list (it cannot account for them);
  // without a todo list, the last request is what the work is on.
  const unresolved = todos.length > 0 ? requests.filter((r) => r.lastItem > lastTodoItem) : requests.length > 0 ? [requests.reduce((a, b) => (b.lastItem >= a.lastItem ? b : a))] : [];
  const push = (section: SummarySection, text: string, order: number, s: number, inline?: Entry['inline'], fact?: Fact, decision?: Decision) =>
    out.push({ section, inline, text, order, salience: s, tokens: count(text) + (inline ? 1 : 2), fact, decision });
  // Todo items in their list's order (the facts keep it), at the time of the latest list.
  let todoIndex = 0;
  for (const f of set.facts) {
    const s = salience(f, n);
    switch (f.category) {
      case 'request':
        push('Goal and requests', plain(f.text), f.firstItem, s + 1, undefined, f);
        break;
      case 'todo':
        push('State now', `${STATE_PREFIX[f.status ?? 'pending']}${f.text}`, lastTodoItem + todoIndex++ / 1e4, f.status === 'completed' ? s - 2 : s + 1, undefined, f);
        break;
      case 'path':
        push('Files', fileLine(f), f.firstItem, s, undefined, f);
        break;
      case 'command':
        push('Commands and results', withDetail(f.text, f.detail), f.firstItem, s + 0.5, undefined, f);
        break;
      case 'error':
        push('Errors', withDetail(f.text, f.detail), f.firstItem, s, undefined, f);
        break;
      case 'identifier':
        push('Key identifiers and figures', f.text, f.firstItem, s - 0.5, 'names', f);
        break;
      case 'number':
        push('Key identifiers and figures', f.text, f.firstItem, s - 0.5, 'figures', f);
        break;
      default: {
        const _exhaustive: never = f.category;
        return _exhaustive;
      }
    }
  }
  for (const r of unresolved) {
    push('State now', `${STATE_PREFIX.asked}${plain(r.text)}`, r.lastItem, salience(r, n) + 2, undefined, r);
    out[out.length - 1].asked = true;
  }
  for (const d of set.decisions ?? []) push('Decisions', d.text, d.firstItem, decisionSalience(d, n), undefined, undefined, d);
  // Linear fill: only the most salient few per section are candidates at all.
  const bySection = new Map<string, Entry[]>();
  for (const e of out) {
    const k = `${e.section}/${e.inline ?? ''}`;
    const list = bySection.get(k) ?? [];
    list.push(e);
    bySection.set(k, list);
  }
  const kept: Entry[] = [];
  for (const list of bySection.values()) kept.push(...(list.length <= MAX_CANDIDATES_PER_SECTION ? list : list.sort(bySalience).slice(0, MAX_CANDIDATES_PER_SECTION)));
  return kept;
}

/** A decision ranks like a fact of its mentions and recency, a little below a failure. */
function decisionSalience(d: Decision, itemCount: number): number {
  return Math.log2(1 + d.mentions) + (itemCount > 1 ? (2 * d.lastItem) / (itemCount - 1) : 2) + (d.userNamed ? 2 : 0) + 0.5;
}

const bySalience = (a: Entry, b: Entry) => b.salience - a.salience || a.order - b.order;

/** Title line cost; an inline line's prefix cost. */
const titleTokens = (s: SummarySection, count: TokenCounter) => count(`${s}:`) + 1;
const inlinePrefixTokens = (k: 'names' | 'figures', count: TokenCounter) => count(k === 'names' ? NAMES_PREFIX : FIGURES_PREFIX) + 2;

/**
 * Chooses entries by salience until `budget` tokens are spent (titles and line prefixes
 * counted when a section or an inline line opens), then renders the sections in order,
 * entries in time order.
 */
function fill(entries: Entry[], header: string, budget: number, count: TokenCounter): { text: string; chosen: Entry[] } {
  let remaining = budget - count(header) - 1;
  const chosen: Entry[] = [];
  const openSections = new Set<string>();
  const openInline = new Set<string>();
  entries.sort(bySalience);
  for (const e of entries) {
    if (remaining <= 0) break;
    let cost = e.tokens;
    if (!openSections.has(e.section)) cost += titleTokens(e.section, count);
    if (e.inline && !openInline.has(e.inline)) cost += inlinePrefixTokens(e.inline, count);
    if (cost > remaining) continue;
    remaining -= cost;
    openSections.add(e.section);
    if (e.inline) openInline.add(e.inline);
    chosen.push(e);
  }
  return { text: render(chosen, header), chosen };
}

/** The chosen entries as text: sections in order, entries in time order. */
function render(chosen: readonly Entry[], header: string): string {
  // An open request whose Goal line is shown too is named, not repeated, under State now.
  const goalShown = new Set(chosen.filter((e) => e.section === 'Goal and requests').map((e) => e.fact));
  const lines = [header];
  for (const section of SUMMARY_SECTIONS) {
    const mine = chosen.filter((e) => e.section === section).sort((a, b) => a.order - b.order);
    if (mine.length === 0) continue;
    lines.push(`${section}:`);
    const shown = (e: Entry) => (section === 'State now' && e.asked && goalShown.has(e.fact) ? `${STATE_PREFIX.asked}${OPEN_REQUEST_ABOVE}` : e.text);
    const names = mine.filter((e) => e.inline === 'names');
    const figures = mine.filter((e) => e.inline === 'figures');
    for (const e of mine) if (!e.inline) lines.push(`- ${shown(e)}`);
    if (names.length > 0) lines.push(`- ${NAMES_PREFIX}${names.map((e) => e.text).join(INLINE_SEPARATOR)}`);
    if (figures.length > 0) lines.push(`- ${FIGURES_PREFIX}${figures.map((e) => e.text).join(INLINE_SEPARATOR)}`);
  }
  return lines.join('\n');
}

/** The facts a written summary carries: those its chosen entries show (what a condensation merges). */
function factsShown(set: FactSet, chosen: readonly Entry[]): FactSet {
  const facts = new Set<Fact>();
  const decisions = new Set<Decision>();
  for (const e of chosen) {
    if (e.fact) facts.add(e.fact);
    if (e.decision) decisions.add(e.decision);
  }
  return { facts: set.facts.filter((f) => facts.has(f)), itemCount: set.itemCount, decisions: (set.decisions ?? []).filter((d) => decisions.has(d)) };
}

/**
 * The extractive summary of a request and the facts it carries. Pure and deterministic.
 * For 'rolling' and 'watermark' the prior summary is part of the input (the new summary
 * replaces it); for 'leaf' it is continuity context (see requestFacts).
 */
export function extractiveSummarize(req: SummarizeRequest, countTokens?: TokenCounter): { text: string; facts: FactSet } {
  const count = countTokens ?? estimateTokens;
  const set = requestFacts(req);
  // A summary compresses: at most half the span, whatever the target (a tiny span gives a
  // tiny summary, and the tier ladder's "shorter than the input" check passes). Summaries
  // in the input (children, a rolling prior) are already dense: up to 90% of their tokens
  // (their facts, deduplicated, are what is kept).
  let cap = 0;
  for (const i of req.items) cap += (estimateTokens(i.text) + 2) * (i.kind === 'summary' ? 0.9 : 0.5);
  if ((req.purpose === 'rolling' || req.purpose === 'watermark') && req.priorSummary) cap += estimateTokens(req.priorSummary) * 0.9;
  const budget = Math.min(budgetTokens(req.targetTokens, req.tier), Math.floor(cap));
  const n = req.items.length;
  const header = `[${req.purpose} summary of ${n} ${req.purpose === 'condensed' ? 'summaries' : n === 1 ? 'item' : 'items'}]`;
  const filled = fill(candidates(set, count), header, budget, count);
  let { text } = filled;
  const chosen = filled.chosen;
  // Entries were costed one by one; the written text is what must fit. With the real
  // tokenizer the least salient entries go until it does (rarely more than one).
  if (countTokens) {
    chosen.sort(bySalience);
    while (chosen.length > 0 && countTokens(text) > Math.max(budget, countTokens(header))) {
      chosen.pop();
      text = render(chosen, header);
    }
  }
  return { text, facts: factsShown(set, chosen) };
}

/** The extractive summary's text alone (two-line's digest, the tier ladder's fallback). */
export function extractiveSummary(req: SummarizeRequest, countTokens?: TokenCounter): string {
  return extractiveSummarize(req, countTokens).text;
}

/**
 * The extractive summarizer behind the common interface (kind and model 'extractive').
 * `countTokens`: the real tokenizer (the app passes o200k's); without it tokens are estimated.
 */
export function createExtractiveSummarizer(opts?: { countTokens?: TokenCounter }): Summarizer {
  return {
    kind: 'extractive',
    model: EXTRACTIVE_MODEL,
    promptVersion: BASELINE_PROMPT_VERSION,
    async summarize(req: SummarizeRequest, signal?: AbortSignalLike): Promise<SummarizeResult> {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      const { text, facts } = extractiveSummarize(req, opts?.countTokens);
      return { text, model: EXTRACTIVE_MODEL, costUsd: 0, facts };
    },
  };
}
