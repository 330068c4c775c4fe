/**
 * The DAG's overview: every node as a pixel-sized block on a <canvas>, with the visible
 * area as a frame on top. Drag or click it to move the view.
 *
 * Why not React Flow's MiniMap: it draws one SVG rect per node and repaints the whole SVG
 * whenever the view moves (its mask changes), which on a 2,000-node graph cost most of
 * each panning frame (bench:ui). Here the canvas is drawn only when the graph changes,
 * and panning moves one small element.
 */
import { memo, useEffect, useRef } from 'react';
import { useReactFlow, useStore, type ReactFlowState } from '@xyflow/react';
import { NODE_HEIGHT, NODE_WIDTH, type SummaryFlowNode } from './dag-layout.js';
import { onSchemeChange } from '../state/theme.js';

const WIDTH = 132;
const HEIGHT = 92;
const PAD = 4;

interface Bounds {
  x: number;
  y: number;
  scale: number;
}

function boundsOf(nodes: readonly SummaryFlowNode[]): Bounds {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const n of nodes) {
    minX = Math.min(minX, n.position.x);
    minY = Math.min(minY, n.position.y);
    maxX = Math.max(maxX, n.position.x + NODE_WIDTH);
    maxY = Math.max(maxY, n.position.y + NODE_HEIGHT);
  }
  const scale = Math.min((WIDTH - 2 * PAD) / Math.max(1, maxX - minX), (HEIGHT - 2 * PAD) / Math.max(1, maxY - minY));
  // Centre the drawing in the box.
  const x = minX - (WIDTH / scale - (maxX - minX)) / 2;
  const y = minY - (HEIGHT / scale - (maxY - minY)) / 2;
  return { x, y, scale };
}

function cssVar(style: CSSStyleDeclaration, name: string): string {
  return style.getPropertyValue(name).trim() || '#888';
}

const viewportOf = (s: ReactFlowState) => s.transform;
const sizeOf = (s: ReactFlowState) => `${s.width}x${s.height}`;

export const DagMinimap = memo(function DagMinimap({ nodes }: { nodes: readonly SummaryFlowNode[] }) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const frameRef = useRef<HTMLDivElement>(null);
  const boundsRef = useRef<Bounds>(boundsOf(nodes));
  const [tx, ty, zoom] = useStore(viewportOf);
  const size = useStore(sizeOf);
  const flow = useReactFlow();

  // Draw the nodes when the graph (or the theme) changes.
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const draw = () => {
      const bounds = boundsOf(nodes);
      boundsRef.current = bounds;
      const ratio = window.devicePixelRatio || 1;
      canvas.width = WIDTH * ratio;
      canvas.height = HEIGHT * ratio;
      const ctx = canvas.getContext('2d');
      if (!ctx) return;
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, WIDTH, HEIGHT);
      const style = getComputedStyle(canvas);
      const colors = { leaf: cssVar(style, '--dag-leaf'), condensed: cssVar(style, '--dag-condensed'), projected: cssVar(style, '--dag-projected'), selected: cssVar(style, '--accent') };
      for (const n of nodes) {
        ctx.fillStyle = n.data.selected ? colors.selected : n.data.projected ? colors.projected : n.data.depth > 0 ? colors.condensed : colors.leaf;
        const x = (n.position.x - bounds.x) * bounds.scale;
        const y = (n.position.y - bounds.y) * bounds.scale;
        ctx.fillRect(x, y, Math.max(1, NODE_WIDTH * bounds.scale), Math.max(1, NODE_HEIGHT * bounds.scale * 0.8));
      }
    };
    draw();
    return onSchemeChange(draw);
  }, [nodes]);

  // The visible area, as a frame moved by transform (no layout, no repaint of the canvas).
  const [paneW, paneH] = size.split('x').map(Number);
  const b = boundsRef.current;
  const left = (-tx / zoom - b.x) * b.scale;
  const top = (-ty / zoom - b.y) * b.scale;
  const frameStyle = { transform: `translate(${left}px, ${top}px)`, width: Math.max(2, (paneW / zoom) * b.scale), height: Math.max(2, (paneH / zoom) * b.scale) };

  const moveTo = (e: React.PointerEvent<HTMLDivElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const bounds = boundsRef.current;
    void flow.setCenter((e.clientX - rect.left) / bounds.scale + bounds.x, (e.clientY - rect.top) / bounds.scale + bounds.y, { zoom: flow.getZoom() });
  };

  return (
    <div
      className="dag-minimap"
      role="img"
      aria-label="DAG overview: drag to move the view"
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        moveTo(e);
      }}
      onPointerMove={(e) => {
        if (e.currentTarget.hasPointerCapture(e.pointerId)) moveTo(e);
      }}
    >
      <canvas ref={canvasRef} style={{ width: WIDTH, height: HEIGHT }} />
      <div ref={frameRef} className="dag-minimap-frame" style={frameStyle} />
    </div>
  );
});
