/**
 * Decisions in what was said: sentences that state a choice together with its reason.
 * The one place this rule lives (the extractive summarizer's "Decisions" section reads
 * FactSet.decisions; extract.ts calls `decisionsIn` on every said segment).
 *
 * A decision needs both a choice ("decided", "chose", "instead of", "switched to", "we'll
 * use", "the fix is", "root cause") and a reason ("because", "since", "so that", "to
 * avoid", "instead of", "rather than", "which means", "due to"). Narration is refused
 * whatever it contains: sentences that open with "Let me", "Now I'll", "Good", "Perfect",
 * "Great", "Excellent", "Okay", "I'll now", "I see", "Looking at"... describe a step, not a
 * choice. Questions are not decisions.
 */

const CHOICE_RE = /\b(?:decid(?:e|ed|ing)|chose|choose|choosing|opt(?:ed)? (?:for|to)|going with|go with|went with|instead of|rather than|switch(?:ed)? (?:to|from)|prefer(?:red)?|(?:we|i)(?:'ll| will| should) (?:use|keep|drop|move|put|store|make)|keep(?:ing)? .{1,60} (?:as|in|on)|the (?:fix|solution|approach|plan) (?:is|was)|root cause|better to|the right (?:place|way|call))\b/i;
export const REASON_RE = /\b(?:because|since|so that|so the|so it|to avoid|to keep|to prevent|instead of|rather than|which means|due to|otherwise|as it|as they|given that|in order to)\b/i;
/** Narration openers: a step being taken or praised, not a choice. */
export const NARRATION_RE = /^(?:let me|let's|now(?:,)? (?:i|let|we)|i(?:'ll| will) now|next(?:,)? i|good|great|perfect|excellent|nice|okay|ok\b|alright|all right|awesome|done|i see|looking at|first(?:,)? (?:i|let)|then i|i'm going to|i am going to|i need to|i'll start|i've|i have|here's|here is|this (?:is|looks)|that's|it (?:looks|seems)|still|hmm|wait|actually(?:,)? let)/i;

const MAX_DECISION_CHARS = 220;
/** Sentences longer than this are paragraphs run together (or code): not read as one decision. */
const MAX_SENTENCE_CHARS = 400;

/** The sentences of a said text: split at . ! ? followed by a space, and at line breaks. */
function sentencesOf(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const l = line.replace(/^\s*(?:[-*•]|\d+\.)\s+/, '').trim();
    if (l.length < 20) continue;
    for (const s of l.split(/(?<=[.!?])\s+(?=[A-Z`"'(])/)) out.push(s.trim());
  }
  return out;
}

/** Decisions stated in a text (already cleaned of markup), in order, each clipped. */
export function decisionsIn(text: string): string[] {
  const out: string[] = [];
  for (const s of sentencesOf(text)) {
    if (s.length < 24 || s.length > MAX_SENTENCE_CHARS || s.endsWith('?') || s.endsWith(':')) continue;
    if (NARRATION_RE.test(s) || !CHOICE_RE.test(s) || !REASON_RE.test(s)) continue;
    // A sentence that is mostly code (a diff line, a call) is not a stated choice.
    if ((s.match(/[{}();=<>]/g)?.length ?? 0) > 6) continue;
    const clean = s.replace(/\*\*|__|`/g, '').replace(/\s+/g, ' ').trim();
    out.push(clean.length <= MAX_DECISION_CHARS ? clean : `${clean.slice(0, MAX_DECISION_CHARS - 1)}…`);
  }
  return out;
}
