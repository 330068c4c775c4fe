/**
 * The sections of a summary, in order: one list for the extractive summarizer (which
 * writes them), the reader of its text (summary-facts.ts) and the model prompts, so
 * model and offline summaries read alike.
 */
export const SUMMARY_SECTIONS = ['Goal and requests', 'State now', 'Files', 'Commands and results', 'Errors', 'Decisions', 'Key identifiers and figures'] as const;
export type SummarySection = (typeof SUMMARY_SECTIONS)[number];

/** How an entry's result or detail is joined to it on its line ("mix test → ok"). */
export const DETAIL_ARROW = ' → ';
/** Separator of the inline entries of "Key identifiers and figures". */
export const INLINE_SEPARATOR = '; ';
/** Prefixes of the two inline lines of "Key identifiers and figures". */
export const NAMES_PREFIX = 'names: ';
export const FIGURES_PREFIX = 'figures: ';
/** Prefixes of "State now" lines, by todo status; an unresolved request reads "open request: …". */
export const STATE_PREFIX = { completed: 'done: ', in_progress: 'in progress: ', pending: 'open: ', asked: 'open request: ' } as const;
/** An open request whose Goal line is shown reads "open request: the last one above" under State now. */
export const OPEN_REQUEST_ABOVE = 'the last one above';
