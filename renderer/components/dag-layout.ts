/**
 * Layout of the summary DAG for React Flow: depth as layers, drawn as columns (leaves on
 * the left, each condensed depth further right) so that leaves run top to bottom in turn
 * order, like the turn list beside the graph. Each parent is centred on its children,
 * overlaps within a layer pushed apart by one sweep. O(n log n): recomputed while a
 * slider moves, for graphs of thousands of nodes.
 */
import { Position, type Edge, type Node, type NodeHandle } from '@xyflow/react';
import type { ProjectedDag, ProjectedNode, SummaryKind } from '../../shared/strategies/types.js';
import type { SummaryInfo } from '../../shared/contract.js';

export const NODE_WIDTH = 168;
export const NODE_HEIGHT = 42;
/** Gap between neighbours in one layer (vertical). */
const GAP = 8;
/** Distance between depth columns. */
const LAYER_WIDTH = NODE_WIDTH + 64;

export type SummaryNodeData = {
  /** The summary's id in the plan ('s<id>' stored, 'p<k>' planned); the flow node's id is its slot. */
  nodeId: string;
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

/**
 * Every node's size and handles, given up front. React Flow otherwise treats a node object
 * it has not measured as new: it resets the handle bounds, renders the node even when it
 * is off screen, and measures it in the DOM. A slider redraw hands it fresh node objects,
 * so without these every changed node (thousands) was mounted and measured per redraw.
 * The handles match the <Handle>s the node component renders (parent link on the right,
 * child link on the left, both mid-height).
 */
const NODE_MEASURED = { width: NODE_WIDTH, height: NODE_HEIGHT };
const NODE_HANDLES: NodeHandle[] = [
  { type: 'source', position: Position.Left, x: 0, y: NODE_HEIGHT / 2 - 0.5, width: 1, height: 1 },
  { type: 'target', position: Position.Right, x: NODE_WIDTH - 1, y: NODE_HEIGHT / 2 - 0.5, width: 1, height: 1 },
];

/**
 * Parent-to-children links drawn as a bus (one vertical line beside the children's column,
 * a short tick into each child) rather than one curve per child: a condensed node over
 * hundreds of leaves would otherwise fan out hundreds of long curves that the software
 * rasterizer redraws on every update.
 */
export type BusEdgeData = {
  busX: number;
  ticks: Array<{ id: string; y: number; right: number }>;
  /** Draws the stem from the parent to the bus (once per parent). */
  drawsStem: boolean;
};
export type BusFlowEdge = Edge<BusEdgeData, 'bus'>;

export interface DagLayout {
  nodes: SummaryFlowNode[];
  edges: BusFlowEdge[];
}

/**
 * Most nodes the graph draws. A 100,000-turn session at a tiny chunk size plans tens of
 * thousands of leaves; drawing them all would stall the window for seconds on every
 * slider move. Beyond this the graph keeps every condensed node and the most recent
 * leaves, and says so.
 */
export const MAX_DRAWN_NODES = 4000;

/** The DAG to draw: the plan's projected DAG (existing + planned nodes), or the stored summaries alone. */
export function dagOf(planDag: ProjectedDag | null, summaries: readonly SummaryInfo[]): ProjectedDag & { total: number } {
  let dag: ProjectedDag;
  if (planDag) dag = planDag;
  else {
    const nodes: ProjectedNode[] = summaries.map((s) => ({ id: `s${s.id}`, depth: s.depth, projected: false, firstPosition: s.firstPosition, lastPosition: s.lastPosition, tokens: s.tokenCount, compacted: s.compacted }));
    const edges = summaries.flatMap((s) => s.childIds.map((c) => ({ source: `s${s.id}`, target: `s${c}` })));
    dag = { nodes, edges };
  }
  const total = dag.nodes.length;
  if (total <= MAX_DRAWN_NODES) return { ...dag, total };
  const upper = dag.nodes.filter((n) => n.depth > 0);
  const leaves = dag.nodes.filter((n) => n.depth === 0).sort((a, b) => a.firstPosition - b.firstPosition);
  const kept = [...upper, ...leaves.slice(Math.max(0, leaves.length - Math.max(0, MAX_DRAWN_NODES - upper.length)))].slice(-MAX_DRAWN_NODES);
  const ids = new Set(kept.map((n) => n.id));
  return { nodes: kept, edges: dag.edges.filter((e) => ids.has(e.source) && ids.has(e.target)), total };
}

/**
 * Vertical position of every node (leaves in turn order, parents centred on their
 * children) and its slot: `d<depth>:<index in its layer>`.
 *
 * The slot, not the summary id, is the React Flow node id. A slider that changes the
 * chunking renumbers the planned nodes ('p12' now covers other turns); keyed by slot, the
 * node on screen stays mounted and only its data changes, instead of every visible node
 * being unmounted, mounted and measured again on each redraw.
 */
function placeAlongTurns(dag: ProjectedDag, children: ReadonlyMap<string, string[]>): { along: Map<string, number>; slot: Map<string, string> } {
  const layers = new Map<number, ProjectedNode[]>();
  for (const n of dag.nodes) {
    const layer = layers.get(n.depth);
    if (layer) layer.push(n);
    else layers.set(n.depth, [n]);
  }
  const along = new Map<string, number>();
  const slot = new Map<string, string>();
  const step = NODE_HEIGHT + GAP;
  for (const depth of [...layers.keys()].sort((a, b) => a - b)) {
    const desired = layers.get(depth)!.map((n) => {
      let sum = 0;
      let count = 0;
      for (const k of children.get(n.id) ?? []) {
        const y = along.get(k);
        if (y !== undefined) {
          sum += y;
          count++;
        }
      }
      return { n, want: count > 0 ? sum / count : Number.NaN };
    });
    if (desired.every((d) => Number.isNaN(d.want))) {
      // A layer with no placed children (leaves): along the turns.
      desired.sort((a, b) => a.n.firstPosition - b.n.firstPosition || a.n.lastPosition - b.n.lastPosition);
      desired.forEach((d, i) => {
        along.set(d.n.id, i * step);
        slot.set(d.n.id, `d${depth}:${i}`);
      });
      continue;
    }
    // Nodes without placed children go after the others, in turn order.
    for (const d of desired) if (Number.isNaN(d.want)) d.want = Number.POSITIVE_INFINITY;
    desired.sort((a, b) => a.want - b.want || a.n.firstPosition - b.n.firstPosition);
    let cursor = Number.NEGATIVE_INFINITY;
    desired.forEach((d, i) => {
      const want = Number.isFinite(d.want) ? d.want : cursor + step;
      const at = Math.max(want, cursor + step);
      along.set(d.n.id, Number.isFinite(at) ? at : 0);
      slot.set(d.n.id, `d${depth}:${i}`);
      cursor = along.get(d.n.id)!;
    });
  }
  return { along, slot };
}

export function layoutDag(dag: ProjectedDag, summaries: readonly SummaryInfo[], selectedId: string | null): DagLayout {
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
  const { along, slot } = placeAlongTurns(dag, children);

  const nodes: SummaryFlowNode[] = dag.nodes.map((n) => {
    const sid = /^s(\d+)$/.exec(n.id);
    const stored = sid ? summaryById.get(Number(sid[1])) : undefined;
    return {
      id: slot.get(n.id)!,
      type: 'summary',
      position: { x: n.depth * LAYER_WIDTH, y: along.get(n.id) ?? 0 },
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      measured: NODE_MEASURED,
      handles: NODE_HANDLES,
      draggable: false,
      connectable: false,
      data: {
        nodeId: n.id,
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

  const edges: BusFlowEdge[] = [];
  for (const [source, kids] of children) {
    const parent = byId.get(source)!;
    const parentY = (along.get(source) ?? 0) + NODE_HEIGHT / 2;
    const ticks = kids
      .map((k) => ({ id: k, y: (along.get(k) ?? 0) + NODE_HEIGHT / 2, right: byId.get(k)!.depth * LAYER_WIDTH + NODE_WIDTH }))
      .sort((a, b) => a.y - b.y);
    // The bus runs midway between the children's column and the parent's.
    const busX = parent.depth * LAYER_WIDTH - (LAYER_WIDTH - NODE_WIDTH) / 2;
    const className = parent.projected ? 'edge-projected' : 'edge-real';
    // Two edges per parent, to its first and to its last child: React Flow culls an edge by
    // the box of its two ends, so together they stay drawn wherever one of the children is.
    const above = ticks.filter((t) => t.y <= parentY);
    const below = ticks.filter((t) => t.y > parentY);
    const from = slot.get(source)!;
    if (above.length > 0) edges.push({ id: `${from}>up`, source: from, target: slot.get(above[0].id)!, type: 'bus', className, focusable: false, selectable: false, data: { busX, ticks: above, drawsStem: true } });
    if (below.length > 0) edges.push({ id: `${from}>down`, source: from, target: slot.get(below[below.length - 1].id)!, type: 'bus', className, focusable: false, selectable: false, data: { busX, ticks: below, drawsStem: above.length === 0 } });
  }
  return { nodes, edges };
}

function sameNode(a: SummaryFlowNode, b: SummaryFlowNode): boolean {
  const x = a.data;
  const y = b.data;
  return (
    a.position.x === b.position.x &&
    a.position.y === b.position.y &&
    x.nodeId === y.nodeId &&
    x.depth === y.depth &&
    x.projected === y.projected &&
    x.compacted === y.compacted &&
    x.tokens === y.tokens &&
    x.firstPosition === y.firstPosition &&
    x.lastPosition === y.lastPosition &&
    x.kind === y.kind &&
    x.tier === y.tier &&
    x.selected === y.selected
  );
}

function sameEdge(a: BusFlowEdge, b: BusFlowEdge): boolean {
  if (a.className !== b.className || a.source !== b.source || a.target !== b.target || a.data!.busX !== b.data!.busX || a.data!.drawsStem !== b.data!.drawsStem) return false;
  const p = a.data!.ticks;
  const q = b.data!.ticks;
  if (p.length !== q.length) return false;
  for (let i = 0; i < p.length; i++) if (p[i].id !== q[i].id || p[i].y !== q[i].y || p[i].right !== q[i].right) return false;
  return true;
}

/**
 * Hands back the previous layout's objects for nodes and edges that did not change, so
 * React Flow (which compares them by identity) redoes only the ones that did: a slider
 * move usually changes a few nodes out of thousands.
 */
export function reuseUnchanged(prev: DagLayout | null, next: DagLayout): DagLayout {
  if (!prev) return next;
  const oldNodes = new Map(prev.nodes.map((n) => [n.id, n]));
  const oldEdges = new Map(prev.edges.map((e) => [e.id, e]));
  let same = prev.nodes.length === next.nodes.length && prev.edges.length === next.edges.length;
  const nodes = next.nodes.map((n, i) => {
    const old = oldNodes.get(n.id);
    const keep = old && sameNode(old, n) ? old : n;
    if (keep !== prev.nodes[i]) same = false;
    return keep;
  });
  const edges = next.edges.map((e, i) => {
    const old = oldEdges.get(e.id);
    const keep = old && sameEdge(old, e) ? old : e;
    if (keep !== prev.edges[i]) same = false;
    return keep;
  });
  return same ? prev : { nodes, edges };
}
