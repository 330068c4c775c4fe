/**
 * The prompts of probe evaluation, versioned like the summarizer's: the question put to a
 * model that has only the compacted context, and the judge's grading of its answer against
 * what the span said. `PROBE_PROMPT_VERSION` is stored with every evaluation; change it with
 * any change of wording, so grades from two wordings are never mixed. Pure.
 */

/** Bump with any change to the prompts below. */
export const PROBE_PROMPT_VERSION = 'probes-v1';

export const ANSWER_SYSTEM =
  'You are continuing a coding session whose earlier part was compacted. Answer the question from the conversation you are given only. ' +
  'Be specific: name files, commands, identifiers and figures exactly as they appear. If the conversation does not say, answer "not stated".';

export const JUDGE_SYSTEM =
  'You grade how well an answer recalls what happened in a coding session. You are given a question, the reference answer taken from the session itself, and a candidate answer. ' +
  'Score 0-5: 5 = everything in the reference is there and correct; 4 = nearly all, minor omissions; 3 = the main point, some parts missing; 2 = partly right; 1 = barely related; 0 = wrong, or "not stated". ' +
  'Reply with JSON only: {"score": <integer 0-5>, "reason": "<one sentence>"}.';

/** The answering model's user message: the compacted context as the variant sends it, then the question. */
export function answerPrompt(contextText: string, question: string): string {
  return `<conversation>\n${contextText}\n</conversation>\n\nQuestion: ${question}`;
}

/** The judge's user message. */
export function judgePrompt(question: string, reference: string, answer: string): string {
  return `Question: ${question}\n\nReference answer (from the session):\n${reference}\n\nCandidate answer:\n${answer}`;
}

/** The judge's grade out of its reply: an integer 0–5 and its reason; null when the reply holds no such grade. */
export function parseJudgeReply(reply: string): { score: number; reason: string } | null {
  const json = /\{[\s\S]*\}/.exec(reply);
  if (!json) return null;
  try {
    const o = JSON.parse(json[0]) as { score?: unknown; reason?: unknown };
    const score = typeof o.score === 'number' ? o.score : typeof o.score === 'string' && /^\d$/.test(o.score) ? Number(o.score) : NaN;
    if (!Number.isInteger(score) || score < 0 || score > 5) return null;
    return { score, reason: typeof o.reason === 'string' ? o.reason.slice(0, 400) : '' };
  } catch {
    return null;
  }
}
