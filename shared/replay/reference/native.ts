/**
 * Reference of the native strategies `codex` and `claude-code` (each tool's automatic
 * compaction as shared/strategies/native.ts, codex.ts and claude-code.ts state it, from the
 * sources docs/strategies.md cites). Before each call: the context the model would receive,
 * by the variant's measure, against the tool's line —
 * codex: min(model_auto_compact_token_limit, 90% of the window), or the 90% when unset;
 * claude-code: window − reserved summary output − buffer.
 * At or over it: the whole history before the call (moved back to the last tool-cycle-safe
 * cut, which must pass at least one conversation turn not yet summarized) becomes ONE summary
 * standing for every conversation turn from the first to the cut; the previous one is superseded.
 * Kept verbatim before the cut: the system turns, and (codex) the user messages — user turns
 * answering no tool call — newest first while they fit a 20,000-token budget, the first one
 * that does not fit cut to what is left.
 */
import { claudeCodeThreshold, type ClaudeCodeParams } from '../../strategies/claude-code.js';
import { codexThreshold, type CodexParams } from '../../strategies/codex.js';
import { convCount, convEdges, isConv, measuredAt, safeAtOrBefore, standInTokens, systemPrefixEnd, type RefFiring, type RefResult, type RefSession } from './common.js';

function referenceNative(s: RefSession, threshold: number, userBudget: number, summaryTokens: number): RefResult {
  let cut: number | null = null;
  let summary = 0;
  let kept = 0;
  const views: number[] = [];
  const firings: RefFiring[] = [];
  const view = (end: number) => {
    let v = 0;
    for (let q = 0; q < end; q++) if (!isConv(s.metas[q]) || cut === null || q >= cut) v += s.metas[q].tokenCount;
    return cut === null ? v : v + summary + kept;
  };
  for (let k = 0; k < s.calls.length; k++) {
    const end = s.calls[k].position;
    const prefixEnd = systemPrefixEnd(s.metas, end);
    const measured = measuredAt(s, k, view(end));
    if (measured >= threshold) {
      const current = cut ?? prefixEnd;
      const next = safeAtOrBefore(s.metas, end);
      if (next > current && convCount(s.metas, current, next) > 0) {
        // The user messages before the new cut, newest first, within the budget.
        let remaining = userBudget;
        let keptNow = 0;
        for (let q = next - 1; q >= 0 && remaining > 0; q--) {
          const m = s.metas[q];
          if (m.role !== 'user' || m.cycleStart !== m.position) continue;
          const take = Math.min(m.tokenCount, remaining);
          keptNow += take;
          remaining -= take;
          if (take < m.tokenCount) break;
        }
        cut = next;
        summary = standInTokens(summaryTokens);
        kept = keptNow;
        firings.push({ call: k, kind: 'fire', figure: measured, spans: [convEdges(s.metas, prefixEnd, next)!] });
      }
    }
    views.push(view(end));
  }
  return { views, firings };
}

export function referenceCodex(s: RefSession, p: CodexParams): RefResult {
  return referenceNative(s, codexThreshold(p), p.userMessageMaxTokens, p.summaryMaxTokens);
}

export function referenceClaudeCode(s: RefSession, p: ClaudeCodeParams): RefResult {
  return referenceNative(s, claudeCodeThreshold(p), 0, p.summaryMaxTokens);
}
