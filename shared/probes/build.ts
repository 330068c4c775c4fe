/**
 * Probes for a compacted span: the questions an agent continuing the work would need
 * answered, with the span's own answer to each, in the four kinds of the accepted measure of
 * a summary (recall, artifact, continuation, decision). Built from the span's facts
 * (shared/facts): the user's requests and constraints, the files changed and how, the commits,
 * what was in progress and the next step, a decision and its reason, an error and its fix.
 * A probe is asked only when the span holds its answer. Pure.
 *
 * Each probe carries `needles`: the strings its answer must name, which the offline check
 * (gradeByTextPresence) looks for in the compacted context. That check is weaker than a
 * judged answer — a string can be present without the model making the link — and is named so
 * wherever it is shown.
 */
import type { Turn } from '../model/turn.js';
import type { Fact, FactSet } from '../facts/types.js';

export type ProbeKind = 'recall' | 'artifact' | 'continuation' | 'decision';
export const PROBE_KINDS: readonly ProbeKind[] = ['recall', 'artifact', 'continuation', 'decision'];

export interface Probe {
  /** Stable within a span: `request`, `files`, `commits`, `next`, `decision`, `error`. */
  id: string;
  kind: ProbeKind;
  question: string;
  /** The span's answer, for the judge. */
  reference: string;
  /** What the answer must name (offline check). */
  needles: string[];
}

const MAX_LIST = 8;
const clip = (s: string, n = 200) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/** Commit messages of the span's `git commit -m` runs, first line each, in order. */
export function commitMessages(turns: ReadonlyArray<Pick<Turn, 'blocks'>>): string[] {
  const out: string[] = [];
  for (const t of turns) {
    for (const b of t.blocks) {
      if (b.type !== 'tool_use') continue;
      const c = (b.input as { command?: unknown } | null)?.command;
      if (typeof c !== 'string' || !/\bgit\s+commit\b/.test(c)) continue;
      // -m "msg", -m 'msg', or a heredoc's first line after cat <<'EOF'.
      const m = /-m\s+"(?!\$\()([^"\n]{3,200})|-m\s+'([^'\n]{3,200})'|<<'?EOF'?\n([^\n]{3,200})/.exec(c);
      const msg = (m?.[1] ?? m?.[2] ?? m?.[3])?.trim();
      if (msg && !out.includes(msg)) out.push(msg);
    }
  }
  return out;
}

const changed = (f: Fact) => f.category === 'path' && ((f.actions?.edited ?? 0) > 0 || (f.actions?.created ?? 0) > 0 || (f.actions?.deleted ?? 0) > 0);
const howChanged = (f: Fact) => (['created', 'edited', 'deleted'] as const).filter((k) => (f.actions?.[k] ?? 0) > 0).join(' and ');

/** The probes of a span, from its facts and (for commits) its tool inputs. */
export function buildProbes(facts: FactSet, turns: ReadonlyArray<Pick<Turn, 'blocks'>>): Probe[] {
  const probes: Probe[] = [];
  const of = (c: Fact['category']) => facts.facts.filter((f) => f.category === c);

  const requests = of('request');
  if (requests.length > 0) {
    probes.push({
      id: 'request',
      kind: 'recall',
      question: 'What did the user ask for in the earlier part of the session, and what constraints did they set?',
      reference: requests.slice(0, MAX_LIST).map((r) => `- ${clip(r.text)}`).join('\n'),
      // The request's identifiers and paths it named, else its words.
      needles: requests.slice(0, 3).flatMap((r) => salientWords(r.text)).slice(0, 6),
    });
  }

  const files = of('path').filter(changed).sort((a, b) => b.mentions - a.mentions).slice(0, MAX_LIST);
  if (files.length > 0) {
    probes.push({
      id: 'files',
      kind: 'artifact',
      question: 'Which files were created, edited or deleted so far, and how?',
      reference: files.map((f) => `- ${f.text}: ${howChanged(f)}`).join('\n'),
      needles: files.map((f) => f.text),
    });
  }

  const commits = commitMessages(turns);
  if (commits.length > 0) {
    probes.push({
      id: 'commits',
      kind: 'artifact',
      question: 'What commits were made, with what messages?',
      reference: commits.slice(0, MAX_LIST).map((c) => `- ${c}`).join('\n'),
      needles: commits.slice(0, MAX_LIST),
    });
  }

  const open = of('todo').filter((t) => t.status !== 'completed');
  const lastRequest = requests.length > 0 ? requests.reduce((a, b) => (b.lastItem > a.lastItem ? b : a)) : null;
  if (open.length > 0 || lastRequest) {
    const inProgress = open.filter((t) => t.status === 'in_progress');
    const pending = open.filter((t) => t.status === 'pending');
    const reference =
      open.length > 0
        ? [...inProgress.map((t) => `- in progress: ${t.text}`), ...pending.map((t) => `- next: ${t.text}`)].slice(0, MAX_LIST).join('\n')
        : `- the latest request: ${clip(lastRequest!.text)}`;
    probes.push({
      id: 'next',
      kind: 'continuation',
      question: 'What was in progress when the earlier part ended, and what is the next step?',
      reference,
      needles: open.length > 0 ? open.slice(0, 4).map((t) => t.text) : salientWords(lastRequest!.text).slice(0, 4),
    });
  }

  const decision = (facts.decisions ?? []).slice().sort((a, b) => Number(b.userNamed) - Number(a.userNamed) || b.mentions - a.mentions || b.lastItem - a.lastItem)[0];
  if (decision) {
    probes.push({
      id: 'decision',
      kind: 'decision',
      question: 'What was decided about the approach, and why?',
      reference: `- ${clip(decision.text, 240)}`,
      needles: salientWords(decision.text).slice(0, 4),
    });
  }

  const errors = of('error').sort((a, b) => Number(b.fixed === true) - Number(a.fixed === true) || b.mentions - a.mentions);
  if (errors.length > 0) {
    const e = errors[0];
    const fixedBy = e.source?.startsWith('command:') ? e.source.slice('command:'.length) : null;
    probes.push({
      id: 'error',
      kind: 'recall',
      question: 'What error came up, and how was it fixed (or is it still open)?',
      reference: `- error: ${clip(e.text)}${fixedBy ? ` (from \`${fixedBy}\`)` : ''}\n- ${e.fixed ? 'fixed later: a later run on the same target or file succeeded' : 'not fixed'}`,
      needles: [clip(e.text, 60).replace(/…$/, '')],
    });
  }
  return probes;
}

/** The words of a sentence worth finding: identifiers and paths as written, else its longer words (at most 6). */
export function salientWords(text: string): string[] {
  const code = [...text.matchAll(/`([^`]{2,60})`|([\w./-]*[./_][\w./-]+)|\b([A-Z][a-z]+[A-Z]\w*)\b/g)].map((m) => (m[1] ?? m[2] ?? m[3]).replace(/[.,:;]+$/, '')).filter((s) => s.length >= 3);
  if (code.length > 0) return [...new Set(code)].slice(0, 6);
  const words = text.toLowerCase().match(/[a-z][a-z0-9-]{5,}/g) ?? [];
  return [...new Set(words)].slice(0, 6);
}

/**
 * The offline grade of a probe (no model): the share of its needles found as text in the
 * compacted context, as 0–5. A weaker check than a judged answer: it says the strings are
 * there, not that a model would put them together.
 */
export function gradeByTextPresence(p: Probe, contextText: string): number {
  if (p.needles.length === 0) return 0;
  const lower = contextText.toLowerCase();
  const found = p.needles.filter((n) => lower.includes(n.toLowerCase())).length;
  return Math.round((5 * found) / p.needles.length);
}
