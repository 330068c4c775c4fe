/**
 * Strategy `masking`: observation masking, model-free. Tool results older than the last
 * `maskWindow` tool cycles are replaced in the replay by a short placeholder naming the
 * tool and the size removed; everything else (the calls, the reasoning, user turns) stays.
 * Published comparisons (e.g. "The Complexity Trap", Lindenbauer et al. 2025, with a
 * window of 10 turns; OpenHands' ObservationMaskingCondenser) found it a strong, cheap
 * baseline against LLM summarization.
 *
 * A *tool cycle* here is identified by its calling turn: the position of the turn that
 * holds the tool_use (TurnMeta.cycleStart of the result turn). The last `maskWindow`
 * distinct calling turns are kept; the mask boundary B is the position of the oldest of
 * them, and every tool_result answering a call at a position < B is masked. The planner
 * (metas only) and `maskToolResults` (full turns, used by the replay) share this rule
 * through `maskBoundaryOf`, so the preview and the replay agree.
 */
import { withLazy } from '../lazy.js';
import type { ParamSpec } from './params.js';
import { buildSpanIndex, type SpanIndex } from './spans.js';
import type { StrategyRules } from './strategy.js';
import { maskedCandidates } from '../replay/candidates.js';
import { isOnlyField, type Plan, type PlanInput, type PlanSpan } from './types.js';
import type { ContentBlock, Turn, TurnMeta } from '../model/turn.js';
import { blocksToText, pairToolCycles, turnMetasOf } from '../model/turn.js';

export type MaskingParams = { maskWindow: number };

export const maskingSpecs: readonly ParamSpec[] = [
  {
    name: 'maskWindow',
    label: 'Mask window',
    default: 10,
    min: 0,
    max: null,
    sliderMax: 100,
    step: 1,
    kind: 'int',
    unit: 'tool cycles',
    doc: 'Tool results of the last maskWindow tool cycles stay; older ones are masked. Default 10 (the window of the observation-masking baseline in "The Complexity Trap", 2025). 0 masks every tool result.',
  },
];

/**
 * Estimated tokens of one placeholder in the plan's tokensAfter (the replay counts the
 * real text): "[tool result masked: <tool> output, N chars removed]" is about 12-16 tokens.
 */
export const MASK_PLACEHOLDER_TOKENS = 16;

/** The placeholder that replaces a masked tool result. */
export function maskPlaceholder(toolName: string, removedChars: number): string {
  return `[tool result masked: ${toolName} output, ${removedChars} chars removed]`;
}

/**
 * The mask boundary B: the position of the oldest of the last `maskWindow` calling turns
 * (`count` when maskWindow is 0), or null when there are at most `maskWindow` tool cycles
 * (nothing to mask). Tool results answering a call at a position < B are masked, so every
 * masked result lies before B except results that arrive late (after newer calls).
 * O(1) on the span index's cycle arrays when the calls are answered in order, else
 * O(maskWindow) (built once per session; a live replay's prefixes share them).
 */
export function maskBoundaryOf(turns: readonly TurnMeta[] | null, maskWindow: number, ix: SpanIndex = buildSpanIndex(turns!)): number | null {
  const c = ix.cycles;
  const end = ix.count;
  // A call counts once one of its results is among the turns.
  const calls = c.answeredCountPrefix[end];
  if (calls <= maskWindow) return null;
  if (maskWindow <= 0) return end;
  // Usually the calls answered so far are the first `calls` ones: the boundary is read directly.
  if (c.firstResultMax[calls - 1] < end) return c.callPos[calls - maskWindow];
  let seen = 0;
  for (let k = c.callCountPrefix[end] - 1; k >= 0; k--) {
    if (c.callFirstResult[k] < end && ++seen === maskWindow) return c.callPos[k];
  }
  return null; // unreachable: calls > maskWindow
}

/** The masked result turns for a boundary: counts and sizes from prefix sums, the late results scanned. */
function maskedResults(ix: SpanIndex, boundary: number): { count: number; tokens: number; chars: number; first: number; last: number } {
  const c = ix.cycles;
  // Every result before the boundary answers a call before it.
  let count = c.resultCountPrefix[boundary];
  let tokens = c.resultTokenPrefix[boundary];
  let chars = c.resultCharPrefix[boundary];
  let first = count > 0 ? c.firstResultsSorted[0] : -1;
  let last = c.lastResultBefore[boundary];
  // Results that arrive late, among the last maskWindow cycles' turns: none after the last
  // result of the calls before the boundary (usually before the boundary: nothing to scan).
  const callsBefore = c.callCountPrefix[boundary];
  const stop = callsBefore > 0 ? Math.min(ix.count, c.lastResultMax[callsBefore - 1] + 1) : 0;
  const answersFrom = c.answersFrom;
  for (let r = boundary; r < stop; r++) {
    if (answersFrom[r] < boundary) {
      count++;
      tokens += ix.tokenPrefix[r + 1] - ix.tokenPrefix[r];
      chars += ix.charPrefix[r + 1] - ix.charPrefix[r];
      if (first < 0) first = r;
      last = r;
    }
  }
  return { count, tokens, chars, first, last };
}

const maskReason = (count: number, maskWindow: number, tokens: number) => `${count} tool-result turns older than the last ${maskWindow} tool cycles are masked (${tokens} tokens)`;

export function planMasking(input: PlanInput<MaskingParams>): Plan<MaskingParams> {
  const { turns, params } = input;
  const ix = buildSpanIndex(turns);
  const tokensBefore = ix.totalTokens;
  const boundary = maskBoundaryOf(turns, params.maskWindow);
  const m = boundary !== null ? maskedResults(ix, boundary) : { count: 0, tokens: 0, chars: 0, first: -1, last: -1 };
  // One span: the masked result turns (a subset of [first, last], like spans that skip system turns).
  // Their ids are listed only when read (a live replay plans masking before every tool cycle).
  const listIds = () => {
    const out: number[] = [];
    for (let p = m.first; p <= m.last; p++) if (turns[p].cycleStart < turns[p].position && turns[p].cycleStart < boundary!) out.push(turns[p].id);
    return out;
  };
  const spans: PlanSpan[] =
    m.count > 0
      ? [
          withLazy<PlanSpan, 'turnIds'>({ id: 'p0', purpose: 'mask', firstPosition: m.first, lastPosition: m.last }, 'turnIds', listIds, { tokens: m.tokens, chars: m.chars, targetTokens: m.count * MASK_PLACEHOLDER_TOKENS }, { settable: true }),
        ]
      : [];
  // A result turn is counted as all tool output: an estimate; the replay counts exactly.
  const tokensAfter = tokensBefore - m.tokens + Math.min(m.tokens, m.count * MASK_PLACEHOLDER_TOKENS);
  return {
    strategy: 'masking',
    params,
    trigger: {
      compact: m.count > 0,
      reason: m.count > 0 ? maskReason(m.count, params.maskWindow, m.tokens) : `nothing to mask: at most ${params.maskWindow} tool cycles`,
    },
    boundaries: boundary !== null ? [{ kind: 'mask-window', position: boundary, label: `tool results of the last ${params.maskWindow} tool cycles kept, older ones masked` }] : [],
    spans,
    condense: [],
    dag: { nodes: [], edges: [] },
    tokensBefore,
    tokensAfter,
    budget: null,
  };
}

/**
 * The turns with tool results older than the last `maskWindow` tool cycles replaced by
 * placeholders. `turns` is a whole session in position order. Never mutates: masked turns
 * are new objects with new block arrays (charCount updated; tokenCount recounted with
 * `countTokens` when given, else estimated as ceil(chars / 4)); other turns are returned
 * as they are. Errors keep `is_error`.
 */
export function maskToolResults(turns: readonly Turn[], maskWindow: number, countTokens?: (text: string) => number): Turn[] {
  const boundary = maskBoundaryOf(turnMetasOf(turns), maskWindow);
  if (boundary === null) return turns.slice();
  // Which use position (and tool name) each result block answers: key = resultPosition + id.
  const answered = new Map<string, { usePosition: number; toolName: string }>();
  for (const c of pairToolCycles(turns)) answered.set(`${c.resultPosition}\u0000${c.toolUseId}`, { usePosition: c.usePosition, toolName: c.toolName });
  return turns.map((t) => {
    let blocks: ContentBlock[] | null = null;
    t.blocks.forEach((b, i) => {
      if (b.type !== 'tool_result') return;
      const use = answered.get(`${t.position}\u0000${b.tool_use_id}`);
      if (!use || use.usePosition >= boundary) return;
      blocks ??= t.blocks.slice();
      blocks[i] = { ...b, content: maskPlaceholder(use.toolName, b.content.length) };
    });
    if (!blocks) return t;
    const masked: ContentBlock[] = blocks;
    const text = blocksToText(masked);
    return { ...t, blocks: masked, charCount: text.length, tokenCount: countTokens ? countTokens(text) : Math.ceil(text.length / 4) };
  });
}

export const maskingStrategy: StrategyRules<MaskingParams> = {
  name: 'masking',
  label: 'Observation masking',
  description:
    'Model-free: tool results older than the last maskWindow tool cycles are replaced by a placeholder naming the tool and the size removed. The observation-masking baseline (The Complexity Trap, 2025; OpenHands ObservationMaskingCondenser).',
  specs: maskingSpecs,
  plan: planMasking,
  view: ({ turns, state, params, countTokens }) => maskedCandidates(turns, state.maskBoundary === undefined ? null : maskToolResults(turns, Number(params.maskWindow ?? maskingSpecs[0].default), countTokens)),
  live: {
    // Masks again whenever a tool cycle completes (the window of kept results slides).
    mayFire: (m) => m.newToolCycles > 0,
    visible: (input) => (input.state.maskBoundary === undefined ? planMasking(input).tokensBefore : planMasking(input).tokensAfter),
    // The masking pass (shared/passes/masking.ts) without the machinery: same boundary, counts and stats.
    step: (ix, params, state) => {
      const boundary = maskBoundaryOf(null, params.maskWindow, ix);
      if (boundary === null) return null;
      const m = maskedResults(ix, boundary);
      if (m.count === 0) return null;
      const target = m.count * MASK_PLACEHOLDER_TOKENS;
      const tokensAfter = ix.totalTokens - m.tokens + Math.min(m.tokens, target);
      return { state: isOnlyField(state, 'maskBoundary') ? { maskBoundary: boundary } : { ...state, maskBoundary: boundary }, visibleTokens: tokensAfter, facts: { count: m.count, tokens: m.tokens, target, maskWindow: params.maskWindow } };
    },
    describeStep: (_session, _end, { state, visibleTokens, facts = {} }) => {
      const f = facts as Record<'count' | 'tokens' | 'target' | 'maskWindow', number>;
      const reason = maskReason(f.count, f.maskWindow, f.tokens);
      return { reason, stats: { reason, maskBoundary: state.maskBoundary, toolResultTurnsMasked: f.count, tokensMaskedEstimate: f.tokens - Math.min(f.tokens, f.target), plannedTokensAfter: visibleTokens } };
    },
    lines: () => [],
  },
};
