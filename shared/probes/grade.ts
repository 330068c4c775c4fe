/**
 * Probe questions graded by text: the offline check of a summary (Factory.ai's four kinds of
 * probe: recall, artifact, continuation, decision). A probe set is written from a compacted
 * span before any summary of it is read (test/probes/), and each probe names the
 * facts its answer requires, each as alternative regexes: a fact is present when one of its
 * alternatives matches the text (case-insensitive). A probe scores the share of its facts
 * present; a summary scores the sum over its probes. Weaker than asking a model the question
 * and grading the answer: it says whether the answer is in the text, not whether a reader
 * would find it. Pure and independent of every summarizer and of the loss ledger.
 */
import { z } from 'zod';

export const PROBE_KINDS = ['recall', 'artifact', 'continuation', 'decision'] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

export const ProbeSchema = z.object({
  id: z.string().min(1),
  kind: z.enum(PROBE_KINDS),
  question: z.string().min(1),
  /** Required facts; each is a list of alternative regexes (sources, without slashes). */
  facts: z.array(z.array(z.string().min(1)).min(1)).min(1),
  /** The answer is a conclusion from the span (work left uncommitted), not words it contains. */
  inferred: z.boolean().optional(),
});
export type Probe = z.infer<typeof ProbeSchema>;

export const ProbeSetSchema = z.object({
  /** The fixture file the probes are about (its base name). */
  session: z.string().min(1),
  /** Turn positions of the compacted span, inclusive. */
  span: z.tuple([z.number().int().min(0), z.number().int().min(0)]),
  /** How the probes were written (from the span, before any summary was read). */
  writtenFrom: z.string(),
  probes: z.array(ProbeSchema).min(1),
});
export type ProbeSet = z.infer<typeof ProbeSetSchema>;

export interface ProbeGrade {
  id: string;
  kind: ProbeKind;
  /** Facts found / required. */
  found: number;
  required: number;
  /** found / required. */
  score: number;
}

export interface ProbeReport {
  grades: ProbeGrade[];
  /** Sum of the probes' scores (at most the number of probes). */
  score: number;
  max: number;
  byKind: Record<ProbeKind, number>;
}

/** Whether one fact (its alternatives) is in the text. */
export function factPresent(alternatives: readonly string[], text: string): boolean {
  return alternatives.some((source) => new RegExp(source, 'i').test(text));
}

/** The grades of a text against a probe set. */
export function gradeProbes(set: Pick<ProbeSet, 'probes'>, text: string): ProbeReport {
  const byKind = Object.fromEntries(PROBE_KINDS.map((k) => [k, 0])) as Record<ProbeKind, number>;
  const grades = set.probes.map((p): ProbeGrade => {
    const found = p.facts.filter((alternatives) => factPresent(alternatives, text)).length;
    const score = found / p.facts.length;
    byKind[p.kind] += score;
    return { id: p.id, kind: p.kind, found, required: p.facts.length, score };
  });
  const score = grades.reduce((n, g) => n + g.score, 0);
  return { grades, score: Math.round(score * 100) / 100, max: set.probes.length, byKind };
}
