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
import { itemsToSourceText } from '../model/items.js';
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
 * 1 was the single condensed prompt without sections, kept in electron/summarize/prompts.ts before;
 * 2 the fact-list sections; 3 the hand-off sections and the Claude Code-style preset (analysis stripped).
 */
export const PROMPT_FRAME_VERSION = 3;

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

/** What each hand-off section must hold, in SUMMARY_SECTIONS order (the extractive summarizer writes the same). */
const SECTION_CONTENT: Record<(typeof SUMMARY_SECTIONS)[number], string> = {
  'Goal and constraints': "the user's requests in their own words (short ones whole) and the concrete values the work must honour, from the user and from task specs the agent read (issue tracker output, plan files, todo lists): numbers with units, names, labels, environment variables, limits.",
  Done: 'tasks closed and commits made (hash and subject), tests that passed with their counts.',
  'In progress': 'the current task exactly, its state (edited but not compiled; compiled, failing; uncommitted) and the last error still standing.',
  'Next step': 'the next step from the agent\'s last stated intent, the open todo items and the remaining subtasks; name it, never "the last one above".',
  'Decisions and why': 'each choice made and its reason (because, so that, to avoid, instead of), from what the agent said.',
  'Errors and how they were resolved': 'each error\'s message line (not the first line of the output) and what resolved it (the later command or edit on the same target), or "still open".',
  Files: 'each path in full as written, created or modified (a file rewritten in place is modified), with what was done to it.',
  'Commands and results': 'the exact commands, whole with their quoting intact, and their outcome (exit code, counts of passed and failed tests).',
  'Key identifiers': 'namespaced names whole (modules, classes, functions, ids, versions, URLs).',
};

const SECTIONS_RULE = `Write the summary as a hand-off another agent could continue the work from, under these headings, in this order, and leave out a heading with nothing under it:
${SUMMARY_SECTIONS.map((s, i) => `${i + 1}. ${s}: ${SECTION_CONTENT[s]}`).join('\n')}`;

const STYLE_RULE = `Copy paths, commands, function and variable names, identifiers, versions and numbers character for character. Drop greetings, repetition, narration ("Let me…", "Good", "Perfect") and tool output that led nowhere. Do not invent anything.
Plain text in the conversation's language: no markdown markup, no preamble ("Here is a summary") and no closing remark. Never copy the transcript: rewrite it compactly.`;

const MERGE_RULE = `Merge the inputs into one hand-off of the whole span: take the union of each section across the inputs, drop duplicates, keep chronological order; when a later input settles something an earlier one left open (a task closed, an error resolved), keep only the outcome. ${SUMMARY_SECTIONS[2]} and ${SUMMARY_SECTIONS[3]} are the newest input’s.`;

const INTROS: Record<Exclude<PromptTemplateId, NativeTemplateId>, string> = {
  leaf: 'You compress a segment of a long conversation between a user and an AI coding agent (tool calls included) into a summary that replaces the segment in the agent\'s context. When a summary of what came before is given, it is context only: do not repeat it.',
  'condensed-1': `You merge several consecutive leaf summaries (depth 0, each replacing a segment of turns) of a long conversation between a user and an AI agent into ONE depth-1 summary that replaces them all in the agent's context. ${MERGE_RULE}`,
  'condensed-2plus': `You merge several consecutive condensed summaries of a long conversation between a user and an AI agent into ONE summary one level higher that replaces them all in the agent's context. Each input is labelled with its depth, the turns it covers and its time range; together they span a long stretch, so keep the arc: the goal, what was finished in which stretch, what is still open, and the identifiers and figures a later step still needs. ${MERGE_RULE}`,
  rolling: 'You maintain the running summary of a long conversation between a user and an AI agent. Produce the new running summary: the previous summary updated with the new turns, so that it replaces both. Carry forward every fact that is still true; In progress and Next step come from the newest turns.',
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

/**
 * The selectable prompt templates: `handoff` (the defaults above) and `claude-code`, the
 * source tool's own compaction prompt reproduced in its published form (an analysis step in
 * <analysis> tags, then nine sections in <summary>), so a researcher can compare the app's
 * prompt with the source tool's on the same spans and the same model. A preset is a set of
 * overrides: selecting one goes through the override path, so its text is hashed into the
 * prompt version like any edited template.
 */
export const PROMPT_PRESETS = ['handoff', 'claude-code'] as const;
export type PromptPreset = (typeof PROMPT_PRESETS)[number];

/** Claude Code's nine sections, in its order. */
export const CLAUDE_CODE_SECTIONS = [
  'Primary Request and Intent',
  'Key Technical Concepts',
  'Files and Code Sections',
  'Errors and fixes',
  'Problem Solving',
  'All user messages',
  'Pending Tasks',
  'Current Work',
  'Optional Next Step',
] as const;

const CLAUDE_CODE_BODY = `Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions.
This summary should be thorough in capturing technical details, code patterns, and architectural decisions that would be essential for continuing development work without losing context.

Before providing your final summary, wrap your analysis in <analysis> tags to organize your thoughts and ensure you've covered all necessary points. In your analysis process:

1. Chronologically analyze each message and section of the conversation. For each section thoroughly identify:
   - The user's explicit requests and intents
   - Your approach to addressing the user's requests
   - Key decisions, technical concepts and code patterns
   - Specific details like file names, full code snippets, function signatures and file edits
   - Errors that you ran into and how you fixed them
   - Pay special attention to specific user feedback that you received, especially if the user told you to do something differently.
2. Double-check for technical accuracy and completeness, addressing each required element thoroughly.

Your summary should include the following sections:

1. ${CLAUDE_CODE_SECTIONS[0]}: Capture all of the user's explicit requests and intents in detail
2. ${CLAUDE_CODE_SECTIONS[1]}: List all important technical concepts, technologies, and frameworks discussed.
3. ${CLAUDE_CODE_SECTIONS[2]}: Enumerate specific files and code sections examined, modified, or created. Pay special attention to the most recent messages and include full code snippets where applicable and include a summary of why this file read or edit is important.
4. ${CLAUDE_CODE_SECTIONS[3]}: List all errors that you ran into, and how you fixed them. Pay special attention to specific user feedback that you received, especially if the user told you to do something differently.
5. ${CLAUDE_CODE_SECTIONS[4]}: Document problems solved and any ongoing troubleshooting efforts.
6. ${CLAUDE_CODE_SECTIONS[5]}: List ALL user messages that are not tool results. These are critical for understanding the users' feedback and changing intent.
7. ${CLAUDE_CODE_SECTIONS[6]}: Outline any pending tasks that you have explicitly been asked to work on.
8. ${CLAUDE_CODE_SECTIONS[7]}: Describe in detail precisely what was being worked on immediately before this summary request, paying special attention to the most recent messages from both user and assistant. Include file names and code snippets where applicable.
9. ${CLAUDE_CODE_SECTIONS[8]}: List the next step that you will take that is related to the most recent work you were doing. IMPORTANT: ensure that this step is DIRECTLY in line with the user's most recent explicit requests, and the task you were working on immediately before this summary request. If there is a next step, include direct quotes from the most recent conversation showing exactly what task you were working on and where you left off.

Answer with your <analysis>…</analysis>, then the summary inside <summary>…</summary>, its sections numbered as above.`;

/** What each request is, in the Claude Code style: the transcript is "the conversation so far" or summaries of it. */
const CLAUDE_CODE_INTROS: Record<Exclude<PromptTemplateId, NativeTemplateId>, string> = {
  leaf: 'The transcript below is one segment of a longer conversation between a user and an AI coding agent; a summary of what came before it may be given as context.',
  'condensed-1': 'The transcript below is a series of consecutive summaries of one conversation between a user and an AI coding agent, oldest first; summarize the whole conversation they cover, newest state winning.',
  'condensed-2plus': 'The transcript below is a series of consecutive summaries of one conversation between a user and an AI coding agent, each labelled with its depth, turns and time, oldest first; summarize the whole conversation they cover, newest state winning.',
  rolling: 'A previous summary of the conversation is given, followed by the turns since; your summary replaces both.',
  watermark: 'The transcript below is the older part of a conversation between a user and an AI coding agent; earlier summaries stay before your summary and the most recent turns stay after it.',
  chunk: 'The transcript below is one chunk of a longer conversation between a user and an AI coding agent; the turns after it stay verbatim.',
  digest: 'A quick mechanical digest of a conversation segment is given as the previous summary, and the original turns follow it; where they differ, the turns are right.',
};

/** The templates that ask for the hand-off (every one but the native tools' quoted prompts). */
export const HANDOFF_TEMPLATE_IDS = PROMPT_TEMPLATE_IDS.filter((id): id is Exclude<PromptTemplateId, NativeTemplateId> => !(id in NATIVE_PROMPT_TEMPLATES));

/** The Claude Code-style text of every hand-off template (the native tools' prompts stay as they ship). */
export const CLAUDE_CODE_PROMPT_TEMPLATES: Record<Exclude<PromptTemplateId, NativeTemplateId>, string> = Object.fromEntries(
  HANDOFF_TEMPLATE_IDS.map((id) => [id, `${CLAUDE_CODE_INTROS[id]}\n\n${CLAUDE_CODE_BODY}`]),
) as Record<Exclude<PromptTemplateId, NativeTemplateId>, string>;

export function isPromptPreset(x: string): x is PromptPreset {
  return (PROMPT_PRESETS as readonly string[]).includes(x);
}

/** A preset as overrides (normalized: `handoff` is the defaults, so none). */
export function presetOverrides(preset: PromptPreset): PromptOverrides {
  switch (preset) {
    case 'handoff':
      return {};
    case 'claude-code':
      return normalizeOverrides(CLAUDE_CODE_PROMPT_TEMPLATES);
    default: {
      const _exhaustive: never = preset;
      return _exhaustive;
    }
  }
}

/**
 * A model's answer as the summary to keep: an <analysis> block (the Claude Code-style
 * prompt's thinking step) is dropped and a <summary> block unwrapped, as Claude Code does,
 * when the answer opens with one of them; any other text is kept as it is.
 */
export function summaryOfAnswer(answer: string): string {
  // Only an answer in that shape: a summary that merely quotes the tags (a transcript can) is kept whole.
  if (!/^\s*<(?:analysis|summary)>/.test(answer)) return answer;
  const withoutAnalysis = answer.replace(/<analysis>[\s\S]*?<\/analysis>/g, '');
  const m = /<summary>([\s\S]*?)(?:<\/summary>|$)/.exec(withoutAnalysis);
  const text = (m ? m[1] : withoutAnalysis).trim();
  return text.length > 0 ? text : answer.trim();
}
