/**
 * Probe evaluation's records, as stored (electron/store/probe-evaluations.ts) and as they
 * cross the process boundary and the CLI's --json.
 */
import type { ProbeKind } from './build.js';

/** One probe's outcome. `score` null: ungraded (the model or the judge failed after its retry) — never a made-up grade. */
export interface ProbeResult {
  id: string;
  kind: ProbeKind;
  question: string;
  reference: string;
  /** The answering model's answer (judge mode); null in text mode or when the model failed. */
  answer: string | null;
  /** 0–5; null when ungraded. */
  score: number | null;
  /** The judge's reason, the text check's count ("3 of 4 strings present"), or why it is ungraded. */
  reason: string;
}

export interface ProbeEvaluation {
  id: number;
  sessionId: number;
  /** The variant evaluated, or (subject 'source') the variant the baseline was evaluated beside. */
  variantId: number;
  subject: 'variant' | 'source';
  /** The replay call evaluated; null for a pass's end state and for the source's own compaction. */
  atCall: number | null;
  /** The span the compaction replaced (positions, inclusive). */
  firstPosition: number;
  lastPosition: number;
  /** 'judge': answers graded by a model; 'text': the offline check by text presence (weaker). */
  mode: 'judge' | 'text';
  promptVersion: string;
  answerModel: string | null;
  judgeModel: string | null;
  baseUrl: string | null;
  results: ProbeResult[];
  createdAt: string;
}

/** What the variant table shows: the newest evaluation's mean grade over its graded probes. */
export interface ProbeEvaluationSummary {
  mode: 'judge' | 'text';
  promptVersion: string;
  probes: number;
  graded: number;
  /** Mean 0–5 over graded probes (two decimals); null when none was graded. */
  meanScore: number | null;
}

/** "probes 3.40/5 (judge, 5/5 graded)" or "probes 2.00/5 (text presence — weaker check)". */
export function probeScoreLabel(s: ProbeEvaluationSummary | null | undefined): string {
  if (!s) return 'probes —';
  const mean = s.meanScore === null ? '—' : s.meanScore.toFixed(2);
  return s.mode === 'judge' ? `probes ${mean}/5 (judge, ${s.graded}/${s.probes} graded)` : `probes ${mean}/5 (text presence, a weaker check)`;
}
