/**
 * The variant's summary DAG in React Flow: stored summaries solid, planned (not yet run)
 * nodes dashed, folded (compacted) ones faded. Click a node to inspect it and highlight its
 * source turns in the list. Large graphs: only visible elements are rendered, nodes are
 * fixed-size and not draggable, the node component is memoized.
 */
import { memo, useCallback, useEffect, useMemo, useRef } from 'react';
import { BaseEdge, Controls, Handle, Position, ReactFlow, ReactFlowProvider, useReactFlow, useStore, type EdgeProps, type NodeMouseHandler, type NodeProps, type ReactFlowState } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { formatCompact } from '../format.js';
import { useThrottled } from '../hooks/use-throttled.js';
import type { ProjectedDag } from '../../shared/strategies/types.js';
import type { SummaryInfo } from '../../shared/contract.js';
import { actions, useStudio } from '../state/store.js';
import { DagMinimap } from './DagMinimap.js';
import { dagOf, layoutDag, reuseUnchanged, type BusFlowEdge, type DagLayout, type SummaryFlowNode } from './dag-layout.js';

/**
 * Below this zoom a node's small print is unreadable: nodes switch to a zoomed-out form
 * (a coloured block with a large id). The selector returns a boolean, so nodes re-render
 * only when the threshold is crossed, not on every zoom step.
 */
const FAR_ZOOM = 0.6;
const isFar = (s: ReactFlowState) => s.transform[2] < FAR_ZOOM;

const SummaryNode = memo(function SummaryNode({ data }: NodeProps<SummaryFlowNode>) {
  const id = data.nodeId;
  const far = useStore(isFar);
  const cls = `dag-node depth-${Math.min(data.depth, 4)}${data.projected ? ' projected' : ''}${data.compacted ? ' compacted' : ''}${data.selected ? ' selected' : ''}${far ? ' far' : ''}`;
  return (
    <div className={cls} data-testid="dag-node" data-depth={data.depth} data-projected={data.projected ? 'true' : 'false'} data-node-id={id} data-first={data.firstPosition} data-last={data.lastPosition} title={`${id}: turns ${data.firstPosition}–${data.lastPosition}`}>
      {/* Edges run parent (right) -> child (left): a node's parent attaches on its right. */}
      <Handle type="target" position={Position.Right} isConnectable={false} className="dag-handle" />
      <div className="dag-node-title">
        <span className="dag-node-id mono">{id}</span>
        <span className="dag-node-kind">{data.projected ? 'planned' : data.kind}</span>
        <span className="dag-node-depth">d{data.depth}</span>
      </div>
      <div className="dag-node-sub mono">
        {data.firstPosition}–{data.lastPosition} · {formatCompact(data.tokens)} tok
      </div>
      <Handle type="source" position={Position.Left} isConnectable={false} className="dag-handle" />
    </div>
  );
});

/** A parent's link to its children: stem, vertical bus, one tick per child (see BusEdgeData). */
const BusEdge = memo(function BusEdge({ sourceX, sourceY, data, id }: EdgeProps<BusFlowEdge>) {
  if (!data) return null;
  let top = sourceY;
  let bottom = sourceY;
  let d = data.drawsStem ? `M${sourceX},${sourceY}H${data.busX}` : '';
  for (const t of data.ticks) {
    d += `M${data.busX},${t.y}H${t.right}`;
    if (t.y < top) top = t.y;
    if (t.y > bottom) bottom = t.y;
  }
  d += `M${data.busX},${top}V${bottom}`;
  return <BaseEdge id={id} path={d} />;
});

const NODE_TYPES = { summary: SummaryNode };
const EDGE_TYPES = { bus: BusEdge };
/** Automatic fits stop at a zoom where nodes can still be told apart; the fit button shows all. */
const FIT_OPTIONS = { padding: 0.08, maxZoom: 1.1, minZoom: 0.35 };
const FIT_ALL = { padding: 0.05, maxZoom: 1.1 };

export interface DagViewProps {
  sessionId: number | null;
  /** The plan only masks or drops turns (model-free strategies): there is no DAG to draw. */
  modelFree: boolean;
  /** The plan's projected DAG (stored + planned nodes), or null when there is no plan. */
  planDag: ProjectedDag | null;
  planError: string | null;
  summaries: readonly SummaryInfo[];
}

/**
 * How often the graph follows a moving slider (the list and gauge follow every frame):
 * 10 times a second for small graphs, down to 4 for thousands of nodes, whose redraw
 * (mounting, measuring, edge paths) costs more than a frame.
 */
function followIntervalMs(nodes: number): number {
  return Math.min(250, Math.max(100, nodes / 16));
}

function DagCanvas({ sessionId, modelFree, planDag: livePlanDag, planError, summaries }: DagViewProps) {
  const selection = useStudio((s) => s.selection);
  const selectedId = selection?.kind === 'node' ? selection.nodeId : null;
  const planDag = useThrottled(livePlanDag, followIntervalMs(livePlanDag?.nodes.length ?? 0));
  const dag = useMemo(() => dagOf(planDag, summaries), [planDag, summaries]);
  const previous = useRef<DagLayout | null>(null);
  const { nodes, edges } = useMemo(() => {
    const next = reuseUnchanged(previous.current, layoutDag(dag, summaries, selectedId));
    previous.current = next;
    return next;
  }, [dag, summaries, selectedId]);
  const flow = useReactFlow();

  // Re-fit when the graph's shape changes, once it has settled: longer than the slowest
  // follow interval, so a dragged slider does not make the view jump on every redraw.
  const shapeKey = `${sessionId}:${nodes.length}:${edges.length}`;
  const lastShape = useRef('');
  useEffect(() => {
    if (shapeKey === lastShape.current) return;
    const t = setTimeout(() => {
      lastShape.current = shapeKey;
      void flow.fitView(FIT_OPTIONS);
    }, 600);
    return () => clearTimeout(t);
  }, [shapeKey, flow]);

  const onNodeClick: NodeMouseHandler<SummaryFlowNode> = useCallback((_e, node) => {
    actions.select({ kind: 'node', nodeId: node.data.nodeId });
    actions.scrollTo(node.data.firstPosition);
  }, []);

  const projected = nodes.filter((n) => n.data.projected).length;
  return (
    <div className="dag-view" data-testid="dag-view" data-node-count={dag.total}>
      {dag.total > nodes.length ? (
        <div className="dag-capped" role="note">
          {dag.total.toLocaleString('en-US')} nodes: showing the {nodes.length.toLocaleString('en-US')} most recent. Raise the chunk size to see them all.
        </div>
      ) : null}
      {nodes.length === 0 ? (
        <div className={`empty-state dag-empty${planError && !modelFree && !planDag ? ' error-text' : ''}`} data-testid="dag-empty" role={planError ? 'note' : undefined}>
          {modelFree
            ? 'This strategy is model-free: it masks or drops turns instead of summarizing them, so there is no summary DAG. The turn list shows which turns; Context shows what the model receives.'
            : planDag
              ? 'No summaries, and this plan would create none. Lower the chunk size or the thresholds to see planned nodes.'
              : planError
                ? `Cannot plan with these parameters: ${planError}. Fix the parameter above (or Reset) to see the planned DAG.`
                : 'No summaries yet.'}
        </div>
      ) : null}
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        edgeTypes={EDGE_TYPES}
        onNodeClick={onNodeClick}
        onPaneClick={() => actions.select(null)}
        onlyRenderVisibleElements
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        minZoom={0.02}
        maxZoom={2}
        fitView
        fitViewOptions={FIT_OPTIONS}
        colorMode="system"
        proOptions={{ hideAttribution: true }}
      >
        {nodes.length === 0 ? null : <Controls showInteractive={false} position="top-left" fitViewOptions={FIT_ALL} />}
        {nodes.length === 0 ? null : <DagMinimap nodes={nodes} />}
      </ReactFlow>
      <div className="dag-legend" hidden={nodes.length === 0}>
        <span><i className="sw sw-leaf" />leaf</span>
        <span><i className="sw sw-condensed" />condensed</span>
        <span><i className="sw sw-projected" />planned{projected > 0 ? ` (${projected})` : ''}</span>
        <span className="muted">{dag.total.toLocaleString('en-US')} nodes</span>
      </div>
    </div>
  );
}

function DagView(props: DagViewProps) {
  return (
    <ReactFlowProvider>
      <DagCanvas {...props} />
    </ReactFlowProvider>
  );
}

export default memo(DagView);
