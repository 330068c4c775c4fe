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
import type { ParamSpec } from './params.js';
import type { StrategyRules } from './strategy.js';
import { maskedCandidates } from '../replay/candidates.js';
import type { Plan, PlanInput, PlanSpan } from './types.js';
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
 * O(n), one Uint8Array.
 */
export function maskBoundaryOf(turns: readonly TurnMeta[], maskWindow: number): number | null {
  const n = turns.length;
  const isCall = new Uint8Array(n);
  let calls = 0;
  for (let i = 0; i < n; i++) {
    const cs = turns[i].cycleStart;
    if (cs < turns[i].position && cs >= 0 && isCall[cs] === 0) {
      isCall[cs] = 1;
      calls++;
    }
  }
  if (calls <= maskWindow) return null;
  if (maskWindow <= 0) return n;
  let seen = 0;
  for (let p = n - 1; p >= 0; p--) {
    if (isCall[p] === 1 && ++seen === maskWindow) return p;
  }
  return null; // unreachable: calls > maskWindow
}

export function planMasking(input: PlanInput<MaskingParams>): Plan<MaskingParams> {
  const { turns, params } = input;
  const n = turns.length;
  let tokensBefore = 0;
  for (let i = 0; i < n; i++) tokensBefore += turns[i].tokenCount;
  const boundary = maskBoundaryOf(turns, params.maskWindow);

  const turnIds: number[] = [];
  let maskedTokens = 0;
  let maskedChars = 0;
  let first = -1;
  let last = -1;
  if (boundary !== null) {
    for (let i = 0; i < n; i++) {
      const t = turns[i];
      if (t.cycleStart < t.position && t.cycleStart < boundary) {
        turnIds.push(t.id);
        maskedTokens += t.tokenCount;
        maskedChars += t.charCount;
        if (first < 0) first = t.position;
        last = t.position;
      }
    }
  }
  // One span: the masked result turns (a subset of [first, last], like spans that skip system turns).
  const spans: PlanSpan[] =
    turnIds.length > 0
      ? [{ id: 'p0', purpose: 'mask', firstPosition: first, lastPosition: last, turnIds, tokens: maskedTokens, chars: maskedChars, targetTokens: turnIds.length * MASK_PLACEHOLDER_TOKENS }]
      : [];
  // A result turn is counted as all tool output: an estimate; the replay counts exactly.
  const tokensAfter = tokensBefore - maskedTokens + Math.min(maskedTokens, turnIds.length * MASK_PLACEHOLDER_TOKENS);
  return {
    strategy: 'masking',
    params,
    trigger: {
      compact: turnIds.length > 0,
      reason:
        turnIds.length > 0
          ? `${turnIds.length} tool-result turns older than the last ${params.maskWindow} tool cycles are masked (${maskedTokens} tokens)`
          : `nothing to mask: at most ${params.maskWindow} tool cycles`,
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
    lines: () => [],
  },
};
