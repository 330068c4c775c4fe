/**
 * `dag`: the variant's summary graph as nodes and edges JSON. Nodes are every summary
 * (kind, depth, tier, model, prompt version, tokens, compacted, cache hit, the positions it spans, and
 * whether the model sees it in the replay) and every turn a summary covers directly.
 * Edges go from a summary to each child summary it condensed or superseded (`child`) and
 * to each turn it covers directly (`covers`). A turn's position is given when the
 * replay shows it or when its summary covers a contiguous run; else null.
 */
import type { SummaryInfo } from '../contract.js';
import { exportedSummarizer, exportFileName, type ExportFile, type ExportInput } from './types.js';

export interface DagExport {
  variantId: number;
  session: { id: number; title: string };
  strategy: string | null;
  /** The variant's summarizer with its prompt version and edited templates ({} = defaults); null when not given. */
  summarizer: ReturnType<typeof exportedSummarizer>;
  nodes: Array<
    | { id: string; type: 'summary'; summaryId: number; kind: SummaryInfo['kind']; depth: number; tier: SummaryInfo['tier']; model: string; promptVersion: string; tokens: number; compacted: boolean; cacheHit: boolean; firstPosition: number; lastPosition: number; inContext: boolean; text: string }
    | { id: string; type: 'turn'; turnId: number; position: number | null; inContext: boolean }
  >;
  edges: Array<{ source: string; target: string; kind: 'child' | 'covers' }>;
}

export function toDag(input: ExportInput): DagExport {
  const inContextSummaries = new Set<number>();
  const turnPositions = new Map<number, number>();
  for (const m of input.replay.messages) {
    for (const o of m.parts ?? [m.origin]) {
      if (o.kind === 'summary') inContextSummaries.add(o.summaryId);
      if (o.kind === 'turn') turnPositions.set(o.turnId, o.position);
    }
  }
  const visibleTurns = new Set(turnPositions.keys());
  const summaries = [...input.summaries].sort((a, b) => a.firstPosition - b.firstPosition || a.depth - b.depth || a.id - b.id);
  for (const s of summaries) {
    if (s.turnIds.length === s.lastPosition - s.firstPosition + 1) s.turnIds.forEach((t, i) => turnPositions.has(t) || turnPositions.set(t, s.firstPosition + i));
  }
  const nodes: DagExport['nodes'] = [];
  const edges: DagExport['edges'] = [];
  const turnNodes = new Set<number>();
  for (const s of summaries) {
    nodes.push({ id: `s${s.id}`, type: 'summary', summaryId: s.id, kind: s.kind, depth: s.depth, tier: s.tier, model: s.model, promptVersion: s.promptVersion, tokens: s.tokenCount, compacted: s.compacted, cacheHit: s.cacheHit, firstPosition: s.firstPosition, lastPosition: s.lastPosition, inContext: inContextSummaries.has(s.id), text: s.text });
    for (const c of s.childIds) edges.push({ source: `s${s.id}`, target: `s${c}`, kind: 'child' });
    for (const t of s.turnIds) {
      edges.push({ source: `s${s.id}`, target: `t${t}`, kind: 'covers' });
      turnNodes.add(t);
    }
  }
  const turnList = [...turnNodes].sort((a, b) => (turnPositions.get(a) ?? Infinity) - (turnPositions.get(b) ?? Infinity) || a - b);
  for (const t of turnList) nodes.push({ id: `t${t}`, type: 'turn', turnId: t, position: turnPositions.get(t) ?? null, inContext: visibleTurns.has(t) });
  return { variantId: input.replay.variantId, session: { id: input.session.id, title: input.session.title }, strategy: input.variant?.strategy ?? null, summarizer: exportedSummarizer(input), nodes, edges };
}

export function exportDag(input: ExportInput): ExportFile {
  return { fileName: exportFileName(input, 'dag.json'), mimeType: 'application/json', content: `${JSON.stringify(toDag(input), null, 2)}\n` };
}
