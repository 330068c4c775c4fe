/**
 * The sections of a summary, in order: one list for the extractive summarizer (which writes
 * them), the reader of its text (summary-facts.ts) and the model prompts (prompts.ts), so
 * model and offline summaries read alike. The order is a hand-off's: what the work is for,
 * what is finished, what is under way, what to do next and why things are as they are come
 * first; the reference lists (files, commands, names) after them.
 */
export const SUMMARY_SECTIONS = [
  'Goal and constraints',
  'Done',
  'In progress',
  'Next step',
  'Decisions and why',
  'Errors and how they were resolved',
  'Files',
  'Commands and results',
  'Key identifiers',
] as const;
export type SummarySection = (typeof SUMMARY_SECTIONS)[number];

/** The hand-off sections (1–6): a condensation keeps them for the whole span, newest state winning. */
export const HANDOFF_SECTIONS: readonly SummarySection[] = SUMMARY_SECTIONS.slice(0, 6);

/** How an entry's result or detail is joined to it on its line ("mix test → ok"). */
export const DETAIL_ARROW = ' → ';
/** Separator of the inline entries of "Key identifiers". */
export const INLINE_SEPARATOR = '; ';
/** An error no later step resolved. */
export const STILL_OPEN = 'still open';
/** Line prefixes of "Done" and "In progress". */
export const LINE_PREFIX = {
  commit: 'commit ',
  closed: 'closed ',
  tests: 'tests passed: ',
  todoDone: 'todo done: ',
  task: 'task: ',
  state: 'state: ',
  standing: 'last error still standing: ',
  intent: 'stated intent: ',
  todo: 'open todo: ',
  remaining: 'remaining: ',
  request: 'request: ',
  spec: 'spec ',
} as const;
/** Marks a file line as created in the span (else modified or read). */
export const FILE_CREATED = 'created';
