/**
 * The model path's prompt templates, one per purpose and depth, as pure text (so the
 * window shows and edits the very text the OpenAI-compatible summarizer sends), and the
 * prompt version that names them.
 *
 * - A template is the system message for one kind of request (`templateIdFor`): leaf,
 *   condensed depth 1, condensed depth ≥ 2 (children labelled with depth, turns and time),
 *   rolling, watermark (with memory facts), two-line chunk and digest upgrade. Every one
 *   names the same sections in the same order (SUMMARY_SECTIONS), so model and offline
 *   summaries read alike. The user message around the input (prior summary, transcript,
 *   length rule) is code: `buildPrompt`, versioned by PROMPT_FRAME_VERSION.
 * - The prompt version is `openai-<frame>-<hash8>`: the hash of every template's text in
 *   effect (defaults with the user's overrides applied). It is part of the variant key and
 *   of the summary cache key, so an edited template makes a new variant and never hits a
 *   summary the default template made.
 * - Overrides apply per strategy (`overridesForTemplates`): a variant's version hashes only
 *   the overrides of the templates its strategy uses, so editing the rolling prompt does
 *   not move a dag variant.
 */
import { SUMMARY_SECTIONS } from './sections.js';
import { stableJson } from '../model/turn.js';
import type { SummarizeItem, SummarizeRequest } from '../strategies/summarizer.js';
import { itemsToSourceText } from './items.js';
import { NATIVE_PROMPT_TEMPLATES, type NativeTemplateId } from './native-prompts.js';

/** The sections every summary has, in this order (model prompts and the extractive summarizer alike). */
export { SUMMARY_SECTIONS };

export const PROMPT_TEMPLATE_IDS = ['leaf', 'condensed-1', 'condensed-2plus', 'rolling', 'watermark', 'chunk', 'digest', 'codex', 'claude-code'] as const;
export type PromptTemplateId = (typeof PROMPT_TEMPLATE_IDS)[number];
/** The user's edited templates by id; a missing id uses the default. */
export type PromptOverrides = Partial<Record<PromptTemplateId, string>>;

/**
 * Version of the user-message frame `buildPrompt` wraps around a template (labels, tags,
 * length rule). Bump it when that code changes; template text changes are in the hash.
 * 1 was the single condensed prompt without sections, kept in electron/summarize/prompts.ts before.
 */
export const PROMPT_FRAME_VERSION = 2;

/** What the window shows beside each template. */
export const PROMPT_TEMPLATE_INFO: Record<PromptTemplateId, { label: string; usedFor: string }> = {
  leaf: { label: 'Leaf', usedFor: 'dag: a chunk of turns becomes a depth-0 summary (the previous chunk’s summary as prior)' },
  'condensed-1': { label: 'Condensed, depth 1', usedFor: 'dag: leaf summaries merged into one depth-1 summary' },
  'condensed-2plus': { label: 'Condensed, depth ≥ 2', usedFor: 'dag: condensed summaries, each labelled with its depth, turns and time, merged one level up' },
  rolling: { label: 'Rolling', usedFor: 'rolling: the running summary updated with the new turns' },
  watermark: { label: 'Watermark', usedFor: 'watermark: the turns up to the new watermark, with memory facts' },
  chunk: { label: 'Two-line chunk', usedFor: 'two-line: one background chunk of turns' },
  digest: { label: 'Digest upgrade', usedFor: 'two-line: a model-free digest rewritten from its turns' },
  codex: { label: 'Codex CLI', usedFor: "codex: the whole history in one handoff summary (Codex's own compaction prompt)" },
  'claude-code': { label: 'Claude Code', usedFor: "claude-code: the whole history in one nine-section summary (Claude Code's own compaction prompt)" },
};

const SECTIONS_RULE = `Write the summary under these headings, in this order, and leave out a heading with nothing under it:
${SUMMARY_SECTIONS[0]}: what the user asked for, in their own words when short.
${SUMMARY_SECTIONS[1]} (done, in progress, open): what is finished, what is under way and what is still open, from the latest plan or todo list and the requests not yet met; never a step the transcript shows as already done.
${SUMMARY_SECTIONS[2]}: each path touched, with what was done to it.
${SUMMARY_SECTIONS[3]}: the exact commands run and their outcome (exit code, counts of passed and failed tests).
${SUMMARY_SECTIONS[4]}: each error met and whether a later step fixed it.
${SUMMARY_SECTIONS[5]}: each choice made, with its reason when stated.
${SUMMARY_SECTIONS[6]}: names, ids, versions, URLs and numbers with their units and what they refer to.`;

const STYLE_RULE = `Copy paths, commands, function and variable names, identifiers, versions and numbers character for character. Drop greetings, repetition, narration ("Let me…", "Good", "Perfect") and tool output that led nowhere. Do not invent anything.
Plain text in the conversation's language: no markdown markup, no preamble ("Here is a summary") and no closing remark. Never copy the transcript: rewrite it compactly.`;

const MERGE_RULE = 'Merge facts, not text: take the union of each section across the inputs, drop duplicates, keep chronological order; when a later input settles something an earlier one left open, keep only the outcome. State now is the newest input’s state.';

const INTROS: Record<Exclude<PromptTemplateId, NativeTemplateId>, string> = {
  leaf: 'You compress a segment of a long conversation between a user and an AI coding agent (tool calls included) into a summary that replaces the segment in the agent\'s context. When a summary of what came before is given, it is context only: do not repeat it.',
  'condensed-1': `You merge several consecutive leaf summaries (depth 0, each replacing a segment of turns) of a long conversation between a user and an AI agent into ONE depth-1 summary that replaces them all in the agent's context. ${MERGE_RULE}`,
  'condensed-2plus': `You merge several consecutive condensed summaries of a long conversation between a user and an AI agent into ONE summary one level higher that replaces them all in the agent's context. Each input is labelled with its depth, the turns it covers and its time range; together they span a long stretch, so keep the arc: the goal, what was finished in which stretch, what is still open, and the identifiers and figures a later step still needs. ${MERGE_RULE}`,
  rolling: 'You maintain the running summary of a long conversation between a user and an AI agent. Produce the new running summary: the previous summary updated with the new turns, so that it replaces both. Carry forward every fact that is still true; State now comes from the newest turns.',
  watermark: `You compress the older part of a conversation between a user and an AI agent into a summary that replaces those turns in the agent's context; earlier summaries stay before it and the most recent turns stay verbatim after it, so repeat neither.
After the sections, add "Memory facts:" with the durable facts worth keeping for the rest of the conversation (the user's preferences, project conventions, environment details, constraints), one per line; leave it out when there are none.`,
  chunk: 'You compress one chunk of a long conversation between a user and an AI agent into a summary that replaces the chunk in the agent\'s context while the conversation goes on; the turns after the chunk stay verbatim.',
  digest: 'You rewrite a quick mechanical digest of a conversation segment into a proper summary that replaces the digest in the agent\'s context. The digest is given as the previous summary and the original turns follow it: where they differ, the turns are right.',
};

/** The default text of every template: its intro, the sections, the style rules; the native tools' prompts as they ship. */
export const DEFAULT_PROMPT_TEMPLATES: Record<PromptTemplateId, string> = {
  ...(Object.fromEntries((Object.keys(INTROS) as Array<keyof typeof INTROS>).map((id) => [id, `${INTROS[id]}\n\n${SECTIONS_RULE}\n\n${STYLE_RULE}`])) as Record<keyof typeof INTROS, string>),
  ...NATIVE_PROMPT_TEMPLATES,
};

export function isPromptTemplateId(x: string): x is PromptTemplateId {
  return (PROMPT_TEMPLATE_IDS as readonly string[]).includes(x);
}

/**
 * Overrides as stored and hashed: known ids only, in id order, line endings as \n, and an
 * override equal to its default (or blank) dropped — editing a template back to its default
 * text is the default variant again.
 */
export function normalizeOverrides(overrides: Readonly<Record<string, string>> | undefined | null): PromptOverrides {
  const out: PromptOverrides = {};
  if (!overrides) return out;
  for (const id of PROMPT_TEMPLATE_IDS) {
    const text = overrides[id]?.replace(/\r\n?/g, '\n');
    if (text === undefined || text.trim() === '' || text === DEFAULT_PROMPT_TEMPLATES[id]) continue;
    out[id] = text;
  }
  return out;
}

/** The overrides of the given templates only (a strategy's `prompts`), normalized. */
export function overridesForTemplates(overrides: Readonly<Record<string, string>> | undefined | null, ids: readonly PromptTemplateId[]): PromptOverrides {
  const all = normalizeOverrides(overrides);
  const out: PromptOverrides = {};
  for (const id of ids) if (all[id] !== undefined) out[id] = all[id];
  return out;
}

/** Every template's text in effect. */
export function effectiveTemplates(overrides?: PromptOverrides | null): Record<PromptTemplateId, string> {
  return { ...DEFAULT_PROMPT_TEMPLATES, ...normalizeOverrides(overrides) };
}

/**
 * cyrb53 (a public-domain 53-bit string hash, two Math.imul lanes): pure, no crypto needed
 * in shared/. 14 hex digits; the version uses the last 8 (the low 32 bits), enough to tell prompt texts apart.
 */
export function cyrb53Hex(text: string, seed = 0): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

/** `openai-<frame>-<hash8>` of the templates in effect with these overrides. */
export function openAiPromptVersion(overrides?: PromptOverrides | null): string {
  const t = effectiveTemplates(overrides);
  return `openai-${PROMPT_FRAME_VERSION}-${cyrb53Hex(stableJson(PROMPT_TEMPLATE_IDS.map((id) => [id, t[id]]))).slice(-8)}`;
}

/** The version of the default templates. */
export const OPENAI_PROMPT_VERSION = openAiPromptVersion();

/** Which template a request uses: condensed requests by the depth they make (default 1). */
export function templateIdFor(req: Pick<SummarizeRequest, 'purpose' | 'depth'>): PromptTemplateId {
  switch (req.purpose) {
    case 'condensed':
      return (req.depth ?? 1) >= 2 ? 'condensed-2plus' : 'condensed-1';
    case 'leaf':
    case 'rolling':
    case 'watermark':
    case 'chunk':
    case 'digest':
    case 'codex':
    case 'claude-code':
      return req.purpose;
    default: {
      const _exhaustive: never = req.purpose;
      return _exhaustive;
    }
  }
}

/** Sampling temperature per tier: the aggressive rung is shorter and more conservative. */
export const TEMPERATURE = { normal: 0.2, aggressive: 0 } as const;

export interface ChatPrompt {
  /** The template used (shown in tests and logs). */
  templateId: PromptTemplateId;
  system: string;
  user: string;
  temperature: number;
  /** Output cap sent as max_tokens: the target plus headroom so a sentence is not cut. */
  maxTokens: number;
}

/** "summary (depth 1, turns 12–80, 2026-01-02 10:00 → 10:42)": a labelled child of a depth ≥ 2 condensation. */
export function childLabel(item: SummarizeItem): string {
  const parts: string[] = [];
  if (item.depth !== undefined) parts.push(`depth ${item.depth}`);
  if (item.firstPosition !== undefined && item.lastPosition !== undefined) parts.push(`turns ${item.firstPosition}–${item.lastPosition}`);
  const from = shortTime(item.firstAt);
  const to = shortTime(item.lastAt);
  if (from && to) parts.push(from.slice(0, 10) === to.slice(0, 10) ? `${from} → ${to.slice(11)}` : `${from} → ${to}`);
  else if (from || to) parts.push((from ?? to)!);
  return parts.length > 0 ? `summary (${parts.join(', ')})` : 'summary';
}

/** An ISO timestamp as "YYYY-MM-DD HH:MM" (UTC, as stored); anything else unchanged; null when absent. */
function shortTime(at: string | null | undefined): string | null {
  if (!at) return null;
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(at);
  return m ? `${m[1]} ${m[2]}` : at;
}

/** The messages for one request (the tier's target is already in `req.targetTokens`). */
export function buildPrompt(req: SummarizeRequest, templates: Readonly<Record<PromptTemplateId, string>> = DEFAULT_PROMPT_TEMPLATES): ChatPrompt {
  const templateId = templateIdFor(req);
  const length =
    req.tier === 'aggressive'
      ? `Be terse: at most ${req.targetTokens} tokens, fragments are fine, only what the agent cannot continue without.`
      : `Aim for at most ${req.targetTokens} tokens.`;
  const system = `${templates[templateId]}\n\n${length}`;
  const parts: string[] = [];
  if (req.priorSummary) {
    const label =
      req.purpose === 'rolling'
        ? 'Previous summary (to be replaced by yours, keep what still matters):'
        : req.purpose === 'digest'
          ? 'Digest to rewrite:'
          : 'Summary of what came before (context only, do not repeat it):';
    parts.push(`${label}\n<previous_summary>\n${req.priorSummary}\n</previous_summary>`);
  }
  if (req.purpose === 'condensed') {
    const depth = req.depth ?? 1;
    const labelled = templateId === 'condensed-2plus';
    const text = labelled ? req.items.map((i) => `${childLabel(i)}: ${i.text}`).join('\n\n') : itemsToSourceText(req.items);
    parts.push(`Summaries to merge into one depth-${depth} summary, oldest first:\n<transcript>\n${text}\n</transcript>`);
    parts.push('Write the merged summary now.');
  } else {
    parts.push(`Turns to summarize, oldest first:\n<transcript>\n${itemsToSourceText(req.items)}\n</transcript>`);
    parts.push('Write the summary now.');
  }
  return { templateId, system, user: parts.join('\n\n'), temperature: TEMPERATURE[req.tier], maxTokens: Math.ceil(req.targetTokens * 1.25) + 64 };
}
