/**
 * Layout of the summary DAG for React Flow: depth as layers, drawn as columns (leaves on
 * the left, each condensed depth further right) so that leaves run top to bottom in turn
 * order, like the turn list beside the graph. Each parent is centred on its children,
 * overlaps within a layer pushed apart by one sweep. O(n log n): recomputed on every
 * slider move for graphs of thousands of nodes.
 */
import type { Edge, Node } from '@xyflow/react';
import type { ProjectedDag, ProjectedNode, SummaryKind } from '../../shared/compaction/types.js';
import type { SummaryInfo } from '../../shared/contract.js';

export const NODE_WIDTH = 168;
export const NODE_HEIGHT = 42;
/** Gap between neighbours in one layer (vertical). */
const GAP = 8;
/** Distance between depth columns. */
const LAYER_WIDTH = NODE_WIDTH + 64;

export type SummaryNodeData = {
  depth: number;
  projected: boolean;
  compacted: boolean;
  tokens: number;
  firstPosition: number;
  lastPosition: number;
  kind: SummaryKind | 'planned';
  tier: string | null;
  selected: boolean;
};

export type SummaryFlowNode = Node<SummaryNodeData, 'summary'>;

/** The DAG to draw: the plan's projected DAG (existing + planned nodes), or the stored summaries alone. */
export function dagOf(planDag: ProjectedDag | null, summaries: readonly SummaryInfo[]): ProjectedDag {
  if (planDag) return planDag;
  const nodes: ProjectedNode[] = summaries.map((s) => ({ id: `s${s.id}`, depth: s.depth, projected: false, firstPosition: s.firstPosition, lastPosition: s.lastPosition, tokens: s.tokenCount, compacted: s.compacted }));
  const edges = summaries.flatMap((s) => s.childIds.map((c) => ({ source: `s${s.id}`, target: `s${c}` })));
  return { nodes, edges };
}

export function layoutDag(dag: ProjectedDag, summaries: readonly SummaryInfo[], selectedId: string | null): { nodes: SummaryFlowNode[]; edges: Edge[] } {
  const byId = new Map<string, ProjectedNode>();
  for (const n of dag.nodes) byId.set(n.id, n);
  const children = new Map<string, string[]>();
  for (const e of dag.edges) {
    if (!byId.has(e.source) || !byId.has(e.target)) continue;
    const list = children.get(e.source);
    if (list) list.push(e.target);
    else children.set(e.source, [e.target]);
  }
  const summaryById = new Map<number, SummaryInfo>();
  for (const s of summaries) summaryById.set(s.id, s);

  const layers = new Map<number, ProjectedNode[]>();
  for (const n of dag.nodes) {
    const layer = layers.get(n.depth);
    if (layer) layer.push(n);
    else layers.set(n.depth, [n]);
  }

  // `along` = the coordinate along the turns (vertical); depth gives the column.
  const x = new Map<string, number>();
  const step = NODE_HEIGHT + GAP;
  const depths = [...layers.keys()].sort((a, b) => a - b);
  for (const depth of depths) {
    const layer = layers.get(depth)!;
    const desired = layer.map((n) => {
      const kids = children.get(n.id) ?? [];
      let sum = 0;
      let count = 0;
      for (const k of kids) {
        const kx = x.get(k);
        if (kx !== undefined) {
          sum += kx;
          count++;
        }
      }
      return { n, want: count > 0 ? sum / count : Number.NaN };
    });
    if (desired.every((d) => Number.isNaN(d.want))) {
      // A layer with no placed children (leaves): along the turns.
      desired.sort((a, b) => a.n.firstPosition - b.n.firstPosition || a.n.lastPosition - b.n.lastPosition);
      desired.forEach((d, i) => x.set(d.n.id, i * step));
      continue;
    }
    // Nodes without placed children go where their turns would put them among the others.
    for (const d of desired) if (Number.isNaN(d.want)) d.want = Number.POSITIVE_INFINITY;
    desired.sort((a, b) => a.want - b.want || a.n.firstPosition - b.n.firstPosition);
    let cursor = Number.NEGATIVE_INFINITY;
    for (const d of desired) {
      const want = Number.isFinite(d.want) ? d.want : cursor + step;
      const at = Math.max(want, cursor + step);
      x.set(d.n.id, Number.isFinite(at) ? at : 0);
      cursor = x.get(d.n.id)!;
    }
  }

  const nodes: SummaryFlowNode[] = dag.nodes.map((n) => {
    const sid = /^s(\d+)$/.exec(n.id);
    const stored = sid ? summaryById.get(Number(sid[1])) : undefined;
    return {
      id: n.id,
      type: 'summary',
      position: { x: n.depth * LAYER_WIDTH, y: x.get(n.id) ?? 0 },
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      draggable: false,
      connectable: false,
      data: {
        depth: n.depth,
        projected: n.projected,
        compacted: n.compacted,
        tokens: n.tokens,
        firstPosition: n.firstPosition,
        lastPosition: n.lastPosition,
        kind: stored?.kind ?? (n.projected ? 'planned' : n.depth > 0 ? 'condensed' : 'leaf'),
        tier: stored?.tier ?? null,
        selected: n.id === selectedId,
      },
    };
  });
  const edges: Edge[] = [];
  for (const [source, kids] of children) {
    const projected = byId.get(source)?.projected ?? false;
    for (const target of kids) edges.push({ id: `${source}>${target}`, source, target, className: projected ? 'edge-projected' : 'edge-real', focusable: false, selectable: false });
  }
  return { nodes, edges };
}
