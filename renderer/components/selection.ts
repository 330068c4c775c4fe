/** What the current selection covers on the turn list, and lookups of selected things. */
import type { ProjectedNode } from '../../shared/strategies/types.js';
import type { ExternalCompactionInfo, SummaryInfo } from '../../shared/contract.js';
import type { Workbench } from '../plan/use-workbench.js';
import type { Selection } from '../state/store.js';

/** `s<id>` ids name stored summaries (the planner's convention for existing nodes). */
export function summaryIdOf(nodeId: string): number | null {
  const m = /^s(\d+)$/.exec(nodeId);
  return m ? Number(m[1]) : null;
}

export function findSummary(summaries: readonly SummaryInfo[], nodeId: string): SummaryInfo | null {
  const id = summaryIdOf(nodeId);
  return id === null ? null : (summaries.find((s) => s.id === id) ?? null);
}

export function findPlanNode(wb: Pick<Workbench, 'plan'>, nodeId: string): ProjectedNode | null {
  return wb.plan?.dag.nodes.find((n) => n.id === nodeId) ?? null;
}

/** Inclusive turn positions the selection covers, or null. */
export function selectionRange(selection: Selection, wb: Pick<Workbench, 'plan' | 'summaries'>, externals: readonly ExternalCompactionInfo[] | undefined): { first: number; last: number } | null {
  if (!selection) return null;
  if (selection.kind === 'external') {
    const e = externals?.find((x) => x.id === selection.externalId);
    return e ? { first: e.firstPosition, last: e.lastPosition } : null;
  }
  const summary = findSummary(wb.summaries, selection.nodeId);
  if (summary) return { first: summary.firstPosition, last: summary.lastPosition };
  const node = findPlanNode(wb, selection.nodeId);
  return node ? { first: node.firstPosition, last: node.lastPosition } : null;
}
