/**
 * What the window draws from a plan, on the real 306-turn spotter session: which boundary
 * is the protected tail for each strategy (the `fresh-tail-boundary` the end-to-end test
 * reads), the per-row span lookup, and the DAG layout (leaves in turn order, parents
 * centred on their children, bus edges reaching every child, unchanged nodes reused, the
 * drawn-node cap).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planFor } from '../../shared/strategies/index.js';
import type { ProjectedDag, StrategyName } from '../../shared/strategies/types.js';
import type { DB } from '../../electron/store/db.js';
import { importFiles } from '../../electron/importers/import.js';
import { listTurnMetas } from '../../electron/store/turns.js';
import { turnMetaColumns } from '../../electron/services/session-views.js';
import { metasFromColumns, totalTokens } from '../../renderer/plan/metas.js';
import { chunkSpans, protectedBoundary, rangeIndexAt } from '../../renderer/plan/lookup.js';
import { MAX_DRAWN_NODES, dagOf, layoutDag, reuseUnchanged } from '../../renderer/components/dag-layout.js';
import type { TurnMeta } from '../../shared/model/turn.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';

const ROOT = path.resolve(__dirname, '../..');
const SPOTTER = path.join(path.join(ROOT, 'test/fixtures'), 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let tmp: TempDb;
let db: DB;
let metas: TurnMeta[];
let sessionId: number;

beforeAll(() => {
  tmp = tempDb('cs-renderer-');
  db = tmp.db;
  const [session] = importFiles(db, [SPOTTER], { discoverSubagents: false }).sessions;
  sessionId = session.id;
  metas = metasFromColumns(turnMetaColumns(db, sessionId));
});

afterAll(() => tmp.cleanup());

const plan = (strategy: StrategyName, params: Record<string, number> = {}) => planFor(strategy, { turns: metas, summaries: [], state: {}, params });

describe('turn metas in the window', () => {
  it('rebuilds exactly the store metas from the columns the server sends', () => {
    expect(metas).toHaveLength(306);
    expect(metas).toEqual(listTurnMetas(db, sessionId));
    // The spotter fixture as stored (o200k_base): 306 turns, 140,001 tokens.
    expect(totalTokens(turnMetaColumns(db, sessionId))).toBe(140001);
  });
});

describe('the protected-tail boundary drawn as fresh-tail-boundary', () => {
  it.each([
    ['dag', {}, 'fresh-tail', 289],
    ['dag', { freshTailCount: 10 }, 'fresh-tail', 295],
    ['watermark', {}, 'preserved-tail', 301],
    ['rolling', {}, 'pointer', 71],
    ['two-line', {}, 'kept-window', 265],
    ['masking', {}, 'mask-window', 281],
    ['window', {}, 'kept-window', 295],
    ['forgetting', {}, 'kept-window', 257],
  ] as const)('%s %j protects from turn %s at %i', (strategy, params, kind, position) => {
    const b = protectedBoundary(plan(strategy, params));
    expect(b).toMatchObject({ kind, position });
  });

  it('is the tail one when a kind occurs twice (window keeps its head at 1 and its tail at 295)', () => {
    const p = plan('window');
    expect(p.boundaries.filter((b) => b.kind === 'kept-window').map((b) => b.position)).toEqual([1, 295]);
    expect(protectedBoundary(p)?.position).toBe(295);
  });
});

describe('per-row span lookup', () => {
  it('answers the same as a scan for every turn', () => {
    const spans = chunkSpans(plan('dag', { leafChunkTokens: 8000 }));
    expect(spans).toHaveLength(18);
    for (let position = 0; position < metas.length; position++) {
      const scan = spans.findIndex((s) => s.firstPosition <= position && position <= s.lastPosition);
      expect(rangeIndexAt(spans, position)).toBe(scan);
    }
    // The fresh tail (the default 16 turns, from the tool-cycle-safe cut at 289) is in no span.
    expect(spans[spans.length - 1].lastPosition).toBe(288);
    expect(rangeIndexAt(spans, 289)).toBe(-1);
  });
});

describe('DAG layout', () => {
  const layoutOf = (p: ReturnType<typeof plan>) => layoutDag(dagOf(p.dag, []), [], null);

  it('puts leaves top to bottom in turn order and each parent on the mean of its children', () => {
    const p = plan('dag', { leafChunkTokens: 8000 });
    const { nodes, edges } = layoutOf(p);
    expect(nodes).toHaveLength(19);
    const leaves = nodes.filter((n) => n.data.depth === 0);
    const parents = nodes.filter((n) => n.data.depth === 1);
    expect(leaves).toHaveLength(18);
    expect(parents).toHaveLength(1);
    const byTurns = [...leaves].sort((a, b) => a.data.firstPosition - b.data.firstPosition);
    for (let i = 1; i < byTurns.length; i++) expect(byTurns[i].position.y).toBeGreaterThan(byTurns[i - 1].position.y);
    const parent = parents[0];
    expect(parent.position.x).toBeGreaterThan(leaves[0].position.x);
    const children = p.dag.edges.filter((e) => e.source === parent.data.nodeId).map((e) => e.target);
    expect(children).toHaveLength(18);
    const meanY = children.reduce((sum, id) => sum + nodes.find((n) => n.data.nodeId === id)!.position.y, 0) / children.length;
    expect(parent.position.y).toBeCloseTo(meanY, 6);
    // The bus edges (up to two per parent) reach every child exactly once.
    const ticks = edges.flatMap((e) => e.data!.ticks.map((t) => t.id)).sort();
    expect(ticks).toEqual([...children].sort());
    expect(edges.filter((e) => e.data!.drawsStem)).toHaveLength(1);
  });

  it('keys flow nodes by slot (depth and rank), so a renumbered plan keeps its nodes mounted', () => {
    const { nodes } = layoutOf(plan('dag', { leafChunkTokens: 8000 }));
    expect(nodes.filter((n) => n.data.depth === 0).map((n) => n.id)).toEqual(Array.from({ length: 18 }, (_, i) => `d0:${i}`));
    expect(nodes.find((n) => n.data.depth === 1)!.id).toBe('d1:0');
    const coarser = layoutOf(plan('dag', { leafChunkTokens: 20000 })).nodes;
    expect(coarser.map((n) => n.id).filter((id) => nodes.some((m) => m.id === id))).toHaveLength(coarser.length);
  });

  it('hands back the same node objects for what a slider move did not change', () => {
    const first = layoutOf(plan('dag', { leafChunkTokens: 8000 }));
    expect(reuseUnchanged(first, layoutOf(plan('dag', { leafChunkTokens: 8000 })))).toBe(first);
    // A shorter fresh tail lengthens only the last leaf (and the parent above it).
    const next = reuseUnchanged(first, layoutOf(plan('dag', { leafChunkTokens: 8000, freshTailCount: 10 })));
    const kept = next.nodes.filter((n, i) => n === first.nodes[i]).length;
    expect(kept).toBeGreaterThanOrEqual(next.nodes.length - 2);
    expect(kept).toBeLessThan(next.nodes.length);
  });

  it(`draws at most ${MAX_DRAWN_NODES} nodes: every condensed node and the most recent leaves`, () => {
    const leaves = Array.from({ length: 5000 }, (_, i) => ({ id: `p${i}`, depth: 0, projected: true, firstPosition: i, lastPosition: i, tokens: 10, compacted: false }));
    const dag: ProjectedDag = {
      nodes: [...leaves, { id: 'p5000', depth: 1, projected: true, firstPosition: 0, lastPosition: 4999, tokens: 100, compacted: false }],
      edges: leaves.map((l) => ({ source: 'p5000', target: l.id })),
    };
    const drawn = dagOf(dag, []);
    // 5,000 leaves + 1 condensed parent.
    expect(drawn.total).toBe(5001);
    expect(drawn.nodes).toHaveLength(MAX_DRAWN_NODES);
    expect(drawn.nodes.some((n) => n.id === 'p5000')).toBe(true);
    expect(drawn.nodes.some((n) => n.id === 'p4999')).toBe(true);
    expect(drawn.nodes.some((n) => n.id === 'p0')).toBe(false);
    expect(drawn.edges).toHaveLength(MAX_DRAWN_NODES - 1);
  });
});
