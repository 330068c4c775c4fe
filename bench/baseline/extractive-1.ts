/**
 * FROZEN COPY of shared/summarize/extractive.ts as of prompt version extractive-1 (before
 * it was rebuilt on facts), kept only as the "before" of the benchmarks: bench/pass.ts
 * times the dag pass with it and with the current one in the same run (the ratio), and
 * bench/summary.ts prints its retention beside the new one's. Not used by the app.
 *
 * The extractive summarizer: offline, deterministic, model-free. The default summarizer,
 * the two-line strategy's emergency digest and the last rung of the tier ladder.
 *
 * It keeps what a continuing agent needs and a model summary would be asked to keep:
 * the user's requests, decisions, open tasks, errors, and every file path, command,
 * URL, identifier and number it finds, within a character budget derived from the
 * target token size (tokens estimated as chars / 4: shared/ has no tokenizer; the
 * engine counts real tokens on the result).
 *
 * Guarantees (tested): never empty (a header line is always written), never the source
 * verbatim (the header is not in the source and every entry is clipped), bounded
 * (at most `budgetChars(target, tier)` characters), and linear in the input size.
 */
import type { AbortSignalLike, SummarizeItem, SummarizeRequest, Summarizer, SummarizeResult } from '../../shared/strategies/summarizer.js';
import { itemSegments } from '../../shared/summarize/items.js';
import { BACKTICK_RE, COMMAND_JSON_RE, ERROR_RE, IDENT_RE, NUMBER_RE, pathOf, SHELL_LINE_RE, STRICT_ERROR_RE, TOKEN_SPLIT_RE, URL_RE } from '../../shared/facts/patterns.js';

/** Version of the extraction rules; part of the cache key and the variant identity. */
export const BASELINE_PROMPT_VERSION = 'extractive-1';
export const EXTRACTIVE_MODEL = 'extractive';

/** Chars per token for the budget estimate (the usual ~4 for English text and code). */
const CHARS_PER_TOKEN = 4;
/** Smallest budget: room for the header and a few entries even for a tiny target. */
export const MIN_BUDGET_CHARS = 240;
/** Hard ceiling, whatever the target: the summary stays bounded. */
export const MAX_BUDGET_CHARS = 64_000;
/** One entry (a request, a decision...) is clipped to this many characters. */
const ENTRY_CHARS = 220;
/** Per-category cap while scanning: a 100,000-line log must not build a huge set. */
const MAX_PER_CATEGORY = 200;

/** The character budget of a summary: target tokens x 4, halved on the aggressive tier, clamped. */
export function budgetChars(targetTokens: number, tier: SummarizeRequest['tier']): number {
  const raw = Math.floor(Math.max(0, targetTokens) * CHARS_PER_TOKEN * (tier === 'aggressive' ? 0.5 : 1));
  return Math.min(MAX_BUDGET_CHARS, Math.max(MIN_BUDGET_CHARS, raw));
}

const DECISION_RE = /\b(decid\w*|chose|choose|going to|we will|we'll|i will|i'll|let's|instead of|switch(?:ed)? to|agreed|approach|plan is|root cause|the fix|fixed|resolved|conclusion)\b/i;
const TASK_RE = /\b(todo|fixme|xxx|next step|next,|need to|needs to|have to|must|should|remaining|pending|not yet|follow[- ]up|still)\b|^\s*[-*]\s*\[ \]/i;
interface Collected {
  requests: string[];
  decisions: string[];
  tasks: string[];
  errors: string[];
  files: Set<string>;
  commands: Set<string>;
  urls: Set<string>;
  identifiers: Set<string>;
  numbers: Set<string>;
}

function clip(s: string, max = ENTRY_CHARS): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

function addCapped(set: Set<string>, value: string): void {
  if (set.size < MAX_PER_CATEGORY && value.length > 0) set.add(value);
}

function pushUnique(list: string[], seen: Set<string>, value: string): void {
  if (list.length >= MAX_PER_CATEGORY || value.length < 3) return;
  const key = value.toLowerCase();
  if (seen.has(key)) return;
  seen.add(key);
  list.push(value);
}

/** The first sentence-or-so of a user message: what was asked. */
function requestOf(lines: readonly string[]): string {
  // Harness wrappers (Claude Code's <command-name>/init</command-name>...) are markup, not the request.
  const joined = lines.join(' ').replace(/<\/?[a-z][\w-]*>/g, ' ').replace(/\s+/g, ' ').trim();
  const sentence = /^(.{20,}?[.?!])(\s|$)/.exec(joined);
  return clip(sentence ? sentence[1] : joined);
}

/** Section titles of an extractive summary: condensing summaries keeps their sections. */
const SECTION_TITLES: Record<string, keyof Pick<Collected, 'requests' | 'decisions' | 'errors' | 'tasks'>> = {
  'Requests:': 'requests',
  'Decisions:': 'decisions',
  'Errors:': 'errors',
  'Open tasks:': 'tasks',
};

/** Block markers (items.ts) are not references: "[tool_use Bash]" must not yield "tool_use". */
const MARKER_RE = /^\s*\[(?:tool_use|tool_result(?: error)?|thinking)\]?|\[\/(?:thinking|tool_result)\]\s*$/gm;

function collectReferences(rawText: string, c: Collected): void {
  const text = rawText.replace(MARKER_RE, ' ');
  for (const m of text.matchAll(URL_RE)) addCapped(c.urls, m[0].replace(/[.,;:]+$/, ''));
  const noUrls = text.replace(URL_RE, ' ');
  if (c.files.size < MAX_PER_CATEGORY) {
    for (const token of noUrls.split(TOKEN_SPLIT_RE)) {
      const p = token.length >= 4 ? pathOf(token) : null;
      if (p) addCapped(c.files, p);
    }
  }
  for (const m of text.matchAll(COMMAND_JSON_RE)) addCapped(c.commands, clip(unescapeJson(m[1]), 160));
  for (const m of text.matchAll(BACKTICK_RE)) {
    // `code` spans are names when short: a path goes with the files, prose-like code is skipped.
    const code = m[1].trim();
    if (/\s/.test(code) && code.length > 40) continue;
    const asPath = /\s/.test(code) ? null : pathOf(code);
    if (asPath) addCapped(c.files, asPath);
    else addCapped(c.identifiers, code);
  }
  for (const m of noUrls.matchAll(IDENT_RE)) addCapped(c.identifiers, m[0]);
  for (const m of noUrls.matchAll(NUMBER_RE)) {
    // Single digits carry no information on their own; keep 2+ digit numbers, versions and measures.
    if (/\d{2,}|\d[.,:]\d|[a-z%]/i.test(m[0])) addCapped(c.numbers, m[0]);
  }
}

function unescapeJson(s: string): string {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return s;
  }
}

function collect(items: readonly SummarizeItem[]): Collected {
  const c: Collected = { requests: [], decisions: [], tasks: [], errors: [], files: new Set(), commands: new Set(), urls: new Set(), identifiers: new Set(), numbers: new Set() };
  // One seen-set for every category: a line is a request OR a task, never printed twice.
  const seenLines = new Set<string>();
  const add = (list: 'requests' | 'decisions' | 'tasks' | 'errors', value: string) => pushUnique(c[list], seenLines, clip(value));
  for (const item of items) {
    let userAsked = false;
    let section: 'requests' | 'decisions' | 'tasks' | 'errors' | null = null;
    for (const seg of itemSegments(item.text)) {
      switch (seg.kind) {
        case 'said':
          if (item.role === 'user' && !userAsked) {
            add('requests', requestOf(seg.lines));
            userAsked = true;
          }
          for (const line of seg.lines) {
            const shell = SHELL_LINE_RE.exec(line);
            if (shell) addCapped(c.commands, clip(shell[1], 160));
            // A summary's own sections (extractive children of a condensation) keep their category.
            if (item.kind === 'summary') {
              if (line in SECTION_TITLES) {
                section = SECTION_TITLES[line];
                continue;
              }
              if (/^[A-Z][a-z ]+:/.test(line) && !line.startsWith('- ')) section = null;
              if (section && line.startsWith('- ')) {
                add(section, line.slice(2));
                continue;
              }
            }
            if (STRICT_ERROR_RE.test(line)) add('errors', line);
            else if (TASK_RE.test(line)) add('tasks', line);
            else if (DECISION_RE.test(line)) add('decisions', line);
          }
          break;
        case 'tool_error': {
          // The head of an errored tool result, plus its explicit error lines.
          add('errors', seg.lines[0] ?? 'tool call failed');
          let extra = 0;
          for (const line of seg.lines.slice(1)) {
            if (extra < 3 && ERROR_RE.test(line)) {
              add('errors', line);
              extra++;
            }
          }
          break;
        }
        case 'tool_result':
          for (const line of seg.lines) if (STRICT_ERROR_RE.test(line)) add('errors', line);
          break;
        case 'tool_use':
        case 'thinking':
          // Commands and names come out through collectReferences; reasoning is not a decision.
          break;
        default: {
          const _exhaustive: never = seg.kind;
          return _exhaustive;
        }
      }
    }
    collectReferences(item.text, c);
  }
  return c;
}

interface Section {
  title: string;
  entries: string[];
  /** Share of the budget this section may use before leftovers are handed out. */
  share: number;
  /** Entries joined on one line (references) or one per line (requests...). */
  inline: boolean;
}

function roleCounts(items: readonly SummarizeItem[]): string {
  const counts = new Map<string, number>();
  for (const i of items) counts.set(i.role, (counts.get(i.role) ?? 0) + 1);
  return [...counts.entries()].map(([role, n]) => `${n} ${role}`).join(', ');
}

/**
 * Fits sections into the budget: each section first takes entries up to its share, then
 * the leftover is handed out in priority order. An entry that does not fit is skipped
 * (a shorter one after it may), and entries keep their chronological order. Entries are
 * never cut here (only clipped to ENTRY_CHARS when collected), so every line reads whole.
 */
function fitSections(sections: Section[], budget: number): Map<Section, string[]> {
  const chosen = new Map<Section, boolean[]>(sections.map((s) => [s, s.entries.map(() => false)]));
  const count = new Map<Section, number>(sections.map((s) => [s, 0]));
  // An entry costs its text plus separators; the first one of a section also pays for the title line.
  const cost = (s: Section, e: string) => (s.inline ? e.length + 2 : e.length + 3) + (count.get(s) === 0 ? s.title.length + 2 : 0);
  let remaining = budget;
  for (const round of [0, 1]) {
    for (const s of sections) {
      let allowance = round === 0 ? Math.floor(budget * s.share) : remaining;
      const flags = chosen.get(s)!;
      for (let i = 0; i < s.entries.length && allowance > 0; i++) {
        if (flags[i]) continue;
        const c = cost(s, s.entries[i]);
        if (c > allowance || c > remaining) continue;
        flags[i] = true;
        count.set(s, count.get(s)! + 1);
        allowance -= c;
        remaining -= c;
      }
    }
  }
  return new Map(sections.map((s) => [s, s.entries.filter((_, i) => chosen.get(s)![i])]));
}

/**
 * The extractive summary of a request. Pure and deterministic: the same request gives
 * the same text. For 'rolling' and 'watermark' the prior summary is part of the input
 * (the new summary replaces it); for 'leaf' it is only continuity context and is not
 * repeated (the model still sees it).
 */
export function baselineSummary(req: SummarizeRequest): string {
  const carriesPrior = (req.purpose === 'rolling' || req.purpose === 'watermark') && req.priorSummary;
  const items: SummarizeItem[] = carriesPrior ? [{ kind: 'summary', role: 'summary', text: req.priorSummary! }, ...req.items] : [...req.items];
  // A summary compresses: at most half the source, whatever the target (so the tier
  // ladder's "shorter than the input" check passes for all but tiny spans).
  let sourceChars = 0;
  for (const i of items) sourceChars += i.text.length;
  const budget = Math.max(MIN_BUDGET_CHARS, Math.min(budgetChars(req.targetTokens, req.tier), Math.floor(sourceChars / 2)));
  const c = collect(items);
  const what = req.purpose === 'condensed' ? 'summaries' : 'items';
  const header = clip(`[Extractive ${req.purpose} summary of ${req.items.length} ${what}${req.items.length ? ` (${roleCounts(req.items)})` : ''}${carriesPrior ? ', continuing the previous summary' : ''}]`, budget);
  const sections: Section[] = [
    { title: 'Requests:', entries: c.requests, share: 0.22, inline: false },
    { title: 'Decisions:', entries: c.decisions, share: 0.14, inline: false },
    { title: 'Errors:', entries: c.errors, share: 0.14, inline: false },
    { title: 'Open tasks:', entries: c.tasks, share: 0.14, inline: false },
    // Reference lists are capped: past a few dozen names a list stops helping the reader.
    { title: 'Files:', entries: [...c.files].slice(0, 60), share: 0.1, inline: true },
    { title: 'Commands:', entries: [...c.commands].slice(0, 25), share: 0.08, inline: true },
    { title: 'URLs:', entries: [...c.urls].slice(0, 25), share: 0.04, inline: true },
    { title: 'Identifiers:', entries: [...c.identifiers].filter((i) => !c.files.has(i)).slice(0, 60), share: 0.09, inline: true },
    { title: 'Numbers:', entries: [...c.numbers].slice(0, 30), share: 0.05, inline: true },
  ];
  const taken = fitSections(sections, budget - header.length - 1);
  const lines = [header];
  for (const s of sections) {
    const entries = taken.get(s)!;
    if (entries.length === 0) continue;
    if (s.inline) lines.push(`${s.title} ${entries.join(', ')}`);
    else {
      lines.push(s.title);
      for (const e of entries) lines.push(`- ${e}`);
    }
  }
  const text = lines.join('\n');
  return text.length <= budget ? text : `${text.slice(0, budget - 1)}…`;
}

/** The extractive summarizer behind the common interface (kind and model 'extractive'). */
export function createBaselineSummarizer(): Summarizer {
  return {
    kind: 'extractive',
    model: EXTRACTIVE_MODEL,
    promptVersion: BASELINE_PROMPT_VERSION,
    async summarize(req: SummarizeRequest, signal?: AbortSignalLike): Promise<SummarizeResult> {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      return { text: baselineSummary(req), model: EXTRACTIVE_MODEL, costUsd: 0 };
    },
  };
}
