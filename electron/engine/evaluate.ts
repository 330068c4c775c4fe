/**
 * Probe evaluation of a compaction: the probes of the span it replaced (shared/probes/build.ts,
 * from the span's facts), each asked of a model that has only the compacted context the
 * variant sends, and its answer graded 0–5 by a judge against the span's own answer
 * (shared/probes/prompts.ts, versioned). The source tool's own compaction (Claude Code's
 * summary and the turns it kept after it) is evaluated the same way beside it, as the baseline.
 * Without a model (`judge` null) the same probes are graded by the presence of their answers'
 * strings in the compacted context: a weaker check, stored as mode 'text'.
 *
 * Which compaction: a variant with a completed replay is evaluated at a call of it (`atCall`,
 * default its last firing's call), the context being what the replay sends there; a variant
 * with only pass runs, at the end of the session under its summaries and state. The span is
 * every turn before that point that the context does not send as recorded (summarized, masked
 * or dropped).
 *
 * A model or judge call that fails (an HTTP error, a reply with no grade) is tried once more;
 * a probe still without a grade is stored as ungraded (score null), never as a score.
 */
import OpenAI from 'openai';
import type { DB } from '../store/db.js';
import { getSession } from '../store/sessions.js';
import { listExternalCompactions, listTurns } from '../store/turns.js';
import { getVariant, listReplaySummaries, listSummaries } from '../store/variants.js';
import { getReplayTimeline } from '../store/replays.js';
import { insertProbeEvaluation } from '../store/probe-evaluations.js';
import { countTokens, DEFAULT_TOKENIZER, isTokenizerName } from '../tokenizer.js';
import { replayStateAt } from '../store/replays.js';
import { StudioError } from '../../shared/contract.js';
import { buildReplay } from '../../shared/replay/build.js';
import { turnFates } from '../../shared/compare/fates.js';
import { extractTurnFacts } from '../../shared/facts/extract.js';
import { messagesText } from '../../shared/retention/text.js';
import { buildProbes, gradeByTextPresence, type Probe } from '../../shared/probes/build.js';
import { ANSWER_SYSTEM, answerPrompt, JUDGE_SYSTEM, judgePrompt, parseJudgeReply, PROBE_PROMPT_VERSION } from '../../shared/probes/prompts.js';
import type { ProbeEvaluation, ProbeResult } from '../../shared/probes/types.js';
import type { Turn } from '../../shared/model/turn.js';

export interface JudgeConfig {
  baseURL: string;
  /** The model that answers the probes. */
  model: string;
  /** The model that grades (default: `model`). */
  judgeModel?: string;
  apiKey?: string;
  timeoutMs?: number;
}

export interface EvaluateOptions {
  variantId: number;
  atCall?: number;
  /** null: offline, graded by text presence. */
  judge: JudgeConfig | null;
  signal?: AbortSignal;
}

export interface EvaluationOutcome {
  variant: ProbeEvaluation;
  /** The source tool's own compaction evaluated the same way; null when the session has none. */
  source: ProbeEvaluation | null;
}

/** Attempts per model or judge call: the first and one retry. */
export const PROBE_ATTEMPTS = 2;

interface Subject {
  atCall: number | null;
  span: readonly Turn[];
  contextText: string;
}

function tokenCounter(db: DB, sessionId: number): (text: string) => number {
  const session = getSession(db, sessionId);
  const tokenizer = session && isTokenizerName(session.tokenizer) ? session.tokenizer : DEFAULT_TOKENIZER;
  return (t) => countTokens(t, tokenizer);
}

/** The variant's compaction: the span it replaced and the context it sends (see the header). */
function variantSubject(db: DB, variantId: number, atCall: number | undefined): Subject & { position: number } {
  const v = getVariant(db, variantId);
  if (!v) throw new StudioError('not_found', `variant ${variantId} does not exist`);
  const count = tokenCounter(db, v.sessionId);
  const turns = listTurns(db, v.sessionId);
  const runId = db.prepare("SELECT MAX(id) FROM runs WHERE variant_id = ? AND kind = 'replay' AND status = 'completed'").pluck().get(variantId) as number | null;
  if (runId !== null) {
    const timeline = getReplayTimeline(db, runId)!;
    const lastFiring = timeline.events.length > 0 ? timeline.events[timeline.events.length - 1].call : undefined;
    const call = atCall ?? lastFiring;
    if (call === undefined) throw new StudioError('invalid_input', `variant ${variantId}'s replay never compacted: nothing to evaluate`);
    const position = timeline.calls.position[call];
    if (position === undefined) throw new StudioError('invalid_input', `call ${call} is out of range: the replay has ${timeline.calls.position.length} calls`);
    const all = listReplaySummaries(db, runId);
    const summaries = all.filter((s) => s.callIndex <= call).map((s) => ({ ...s, compacted: s.compactedAtCall !== null && s.compactedAtCall <= call }));
    const before = turns.slice(0, position);
    const messages = buildReplay({ strategy: timeline.strategy, turns: before, summaries, state: replayStateAt(db, runId, call), params: v.params, countTokens: count }).messages;
    return { atCall: call, position, span: compactedTurns(before, messages, summaries), contextText: messagesText(messages) };
  }
  if (atCall !== undefined) throw new StudioError('invalid_input', `variant ${variantId} has no completed replay: --at-call needs one (run \`replay\` first)`);
  const summaries = listSummaries(db, variantId);
  const messages = buildReplay({ strategy: v.strategy, turns, summaries, state: v.state, params: v.params, countTokens: count }).messages;
  return { atCall: null, position: turns.length, span: compactedTurns(turns, messages, summaries), contextText: messagesText(messages) };
}

function compactedTurns(turns: readonly Turn[], messages: Parameters<typeof turnFates>[1], summaries: Parameters<typeof turnFates>[2]): Turn[] {
  const { fates } = turnFates(turns, messages, summaries);
  return turns.filter((_, i) => fates[i] === 'summarized' || fates[i] === 'masked' || fates[i] === 'dropped');
}

/**
 * The source tool's own compaction: its last one at or before `position` (else its first, at
 * its own place: the baseline is the source's compaction wherever it fell), with the context it
 * sent there — its summary, then the turns after it up to `position`.
 */
function sourceSubject(db: DB, sessionId: number, position: number): Subject | null {
  const all = listExternalCompactions(db, sessionId).filter((x) => x.summaryText);
  const c = all.filter((x) => x.boundaryPosition <= position).pop() ?? all[0];
  if (!c) return null;
  const turns = listTurns(db, sessionId, { from: 0, to: Math.max(position, c.lastPosition + 1) });
  const after = turns.filter((t) => t.position > c.boundaryPosition && t.position < position);
  return {
    atCall: null,
    span: turns.filter((t) => t.position >= c.firstPosition && t.position <= c.lastPosition),
    contextText: `${c.summaryText}\n\n${messagesText(after)}`,
  };
}

type Chat = (model: string, system: string, user: string, maxTokens: number) => Promise<string>;

function chatClient(j: JudgeConfig, signal?: AbortSignal): Chat {
  // Retries are ours (PROBE_ATTEMPTS), so each attempt is one HTTP request the tests can count.
  const client = new OpenAI({ baseURL: j.baseURL, apiKey: j.apiKey ?? 'not-needed', maxRetries: 0, timeout: j.timeoutMs ?? 120_000 });
  return async (model, system, user, maxTokens) => {
    const c: unknown = await client.chat.completions.create(
      { model, messages: [{ role: 'system', content: system }, { role: 'user', content: user }], temperature: 0, max_tokens: maxTokens },
      { signal },
    );
    const text = typeof c === 'object' && c !== null && Array.isArray((c as { choices?: unknown }).choices) ? ((c as OpenAI.Chat.Completions.ChatCompletion).choices[0]?.message?.content ?? '') : '';
    if (text.trim().length === 0) throw new Error(`empty or malformed reply from ${model}`);
    return text;
  };
}

/** `f` tried up to PROBE_ATTEMPTS times; the last error's message when every attempt failed. */
async function withRetry<T>(f: () => Promise<T | null>, what: string, signal?: AbortSignal): Promise<{ value: T } | { error: string }> {
  let last = `${what}: no usable reply`;
  for (let i = 0; i < PROBE_ATTEMPTS; i++) {
    if (signal?.aborted) throw new StudioError('cancelled', 'cancelled');
    try {
      const v = await f();
      if (v !== null) return { value: v };
      last = `${what}: the reply held no grade`;
    } catch (e) {
      last = `${what}: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return { error: last };
}

async function gradeProbes(probes: readonly Probe[], contextText: string, judge: JudgeConfig | null, signal?: AbortSignal): Promise<ProbeResult[]> {
  if (!judge) {
    return probes.map((p) => {
      const found = p.needles.filter((n) => contextText.toLowerCase().includes(n.toLowerCase())).length;
      return { id: p.id, kind: p.kind, question: p.question, reference: p.reference, answer: null, score: gradeByTextPresence(p, contextText), reason: `text presence: ${found} of ${p.needles.length} strings in the context` };
    });
  }
  const chat = chatClient(judge, signal);
  const out: ProbeResult[] = [];
  // One probe at a time: a local server serves one request at a time, and the order is the tests' call order.
  for (const p of probes) {
    const base = { id: p.id, kind: p.kind, question: p.question, reference: p.reference };
    const answered = await withRetry(() => chat(judge.model, ANSWER_SYSTEM, answerPrompt(contextText, p.question), 600), 'answer', signal);
    if ('error' in answered) {
      out.push({ ...base, answer: null, score: null, reason: `ungraded: ${answered.error}` });
      continue;
    }
    const graded = await withRetry(async () => parseJudgeReply(await chat(judge.judgeModel ?? judge.model, JUDGE_SYSTEM, judgePrompt(p.question, p.reference, answered.value), 200)), 'judge', signal);
    out.push('error' in graded ? { ...base, answer: answered.value, score: null, reason: `ungraded: ${graded.error}` } : { ...base, answer: answered.value, score: graded.value.score, reason: graded.value.reason });
  }
  return out;
}

/** Evaluates a variant's compaction and the source's own beside it, and stores both. */
export async function evaluateVariant(db: DB, o: EvaluateOptions): Promise<EvaluationOutcome> {
  const v = getVariant(db, o.variantId);
  if (!v) throw new StudioError('not_found', `variant ${o.variantId} does not exist`);
  const subject = variantSubject(db, o.variantId, o.atCall);
  const source = sourceSubject(db, v.sessionId, subject.position);
  const evaluate = async (s: Subject, kind: 'variant' | 'source'): Promise<ProbeEvaluation> => {
    const probes = s.span.length > 0 ? buildProbes(extractTurnFacts(s.span), s.span) : [];
    const results = await gradeProbes(probes, s.contextText, o.judge, o.signal);
    return insertProbeEvaluation(db, {
      sessionId: v.sessionId,
      variantId: o.variantId,
      subject: kind,
      atCall: kind === 'variant' ? s.atCall : null,
      firstPosition: s.span[0]?.position ?? 0,
      lastPosition: s.span[s.span.length - 1]?.position ?? -1,
      mode: o.judge ? 'judge' : 'text',
      promptVersion: PROBE_PROMPT_VERSION,
      answerModel: o.judge?.model ?? null,
      judgeModel: o.judge ? (o.judge.judgeModel ?? o.judge.model) : null,
      baseUrl: o.judge?.baseURL ?? null,
      results,
    });
  };
  const variant = await evaluate(subject, 'variant');
  return { variant, source: source ? await evaluate(source, 'source') : null };
}
