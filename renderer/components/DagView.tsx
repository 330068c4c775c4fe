/**
 * The variant's summary DAG in React Flow: stored summaries solid, planned (not yet run)
 * nodes dashed, folded (compacted) ones faded. Click a node to inspect it and highlight its
 * source turns in the list. Large graphs: only visible elements are rendered, nodes are
 * fixed-size and not draggable, the node component is memoized.
 */
import { memo, useCallback, useEffect, useMemo, useRef } from 'react';
import { Background, BackgroundVariant, Controls, Handle, MiniMap, Position, ReactFlow, ReactFlowProvider, useReactFlow, useStore, type NodeMouseHandler, type NodeProps, type ReactFlowState } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { formatCompact } from '../format.js';
import type { Workbench } from '../plan/use-workbench.js';
import { actions, useStudio } from '../state/store.js';
import { dagOf, layoutDag, type SummaryFlowNode } from './dag-layout.js';

/**
 * Below this zoom a node's small print is unreadable: nodes switch to a zoomed-out form
 * (a coloured block with a large id). The selector returns a boolean, so nodes re-render
 * only when the threshold is crossed, not on every zoom step.
 */
const FAR_ZOOM = 0.6;
const isFar = (s: ReactFlowState) => s.transform[2] < FAR_ZOOM;

const SummaryNode = memo(function SummaryNode({ id, data }: NodeProps<SummaryFlowNode>) {
  const far = useStore(isFar);
  const cls = `dag-node depth-${Math.min(data.depth, 4)}${data.projected ? ' projected' : ''}${data.compacted ? ' compacted' : ''}${data.selected ? ' selected' : ''}${far ? ' far' : ''}`;
  return (
    <div className={cls} data-testid="dag-node" data-depth={data.depth} data-projected={data.projected ? 'true' : 'false'} data-node-id={id} title={`${id}: turns ${data.firstPosition}–${data.lastPosition}`}>
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

const NODE_TYPES = { summary: SummaryNode };
/** Automatic fits stop at a zoom where nodes can still be told apart; the fit button shows all. */
const FIT_OPTIONS = { padding: 0.08, maxZoom: 1.1, minZoom: 0.35 };
const FIT_ALL = { padding: 0.05, maxZoom: 1.1 };

function minimapColor(node: SummaryFlowNode): string {
  if (node.data.selected) return 'var(--accent)';
  if (node.data.projected) return 'var(--dag-projected)';
  return node.data.depth > 0 ? 'var(--dag-condensed)' : 'var(--dag-leaf)';
}

function DagCanvas({ wb }: { wb: Workbench }) {
  const selection = useStudio((s) => s.selection);
  const selectedId = selection?.kind === 'node' ? selection.nodeId : null;
  const dag = useMemo(() => dagOf(wb.plan?.dag ?? null, wb.summaries), [wb.plan, wb.summaries]);
  const { nodes, edges } = useMemo(() => layoutDag(dag, wb.summaries, selectedId), [dag, wb.summaries, selectedId]);
  const flow = useReactFlow();

  // Re-fit when the graph's shape changes (not on every slider frame: settle first).
  const shapeKey = `${wb.session?.id}:${nodes.length}:${edges.length}`;
  const lastShape = useRef('');
  useEffect(() => {
    if (shapeKey === lastShape.current) return;
    const t = setTimeout(() => {
      lastShape.current = shapeKey;
      void flow.fitView(FIT_OPTIONS);
    }, 160);
    return () => clearTimeout(t);
  }, [shapeKey, flow]);

  const onNodeClick: NodeMouseHandler<SummaryFlowNode> = useCallback((_e, node) => {
    actions.select({ kind: 'node', nodeId: node.id });
    actions.scrollTo(node.data.firstPosition);
  }, []);

  const projected = nodes.filter((n) => n.data.projected).length;
  return (
    <div className="dag-view" data-testid="dag-view" data-node-count={nodes.length}>
      {nodes.length === 0 ? (
        <div className="empty-state dag-empty">
          {wb.plan ? 'No summaries, and this plan would create none. Lower the chunk size or the thresholds to see planned nodes.' : wb.planError ? 'The planner is not available for this strategy yet.' : 'No summaries yet.'}
        </div>
      ) : null}
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
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
        <Background variant={BackgroundVariant.Dots} gap={18} size={1} />
        <Controls showInteractive={false} position="top-left" fitViewOptions={FIT_ALL} />
        <MiniMap pannable zoomable nodeColor={minimapColor} nodeStrokeWidth={0} position="bottom-right" ariaLabel="DAG overview" style={{ width: 132, height: 92 }} />
      </ReactFlow>
      <div className="dag-legend">
        <span><i className="sw sw-leaf" />leaf</span>
        <span><i className="sw sw-condensed" />condensed</span>
        <span><i className="sw sw-projected" />planned{projected > 0 ? ` (${projected})` : ''}</span>
        <span className="muted">{nodes.length} nodes</span>
      </div>
    </div>
  );
}

export default function DagView({ wb }: { wb: Workbench }) {
  return (
    <ReactFlowProvider>
      <DagCanvas wb={wb} />
    </ReactFlowProvider>
  );
}
