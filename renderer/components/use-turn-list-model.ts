/**
 * What the turn list draws, derived from the workbench and the session detail: the
 * plan's boundaries by position, the protected-tail boundary, planned chunks, summary
 * coverage, the source tool's recorded compactions by position and the selection's
 * highlighted range. Each is memoized on its inputs so rows re-render only when it moves.
 */
import { useMemo } from 'react';
import type { ExternalCompactionInfo } from '../../shared/contract.js';
import { useSessionDetail } from '../api/queries.js';
import { boundariesByPosition, chunkSpans, coveringSummaries, protectedBoundary } from '../plan/lookup.js';
import type { Workbench } from '../plan/use-workbench.js';
import { useStudio } from '../state/store.js';
import { selectionRange } from './selection.js';

export function useTurnListModel(wb: Workbench) {
  const sessionId = wb.session?.id ?? null;
  // The row count comes from the session, so the first rows paint before the metas arrive.
  const turnCount = wb.columns ? wb.columns.ids.length : (wb.session?.turns ?? 0);
  const detail = useSessionDetail(wb.listReady ? sessionId : null);
  const selection = useStudio((s) => s.selection);

  const markers = useMemo(() => boundariesByPosition(wb.plan), [wb.plan]);
  const protectedB = useMemo(() => protectedBoundary(wb.plan), [wb.plan]);
  const spans = useMemo(() => chunkSpans(wb.plan), [wb.plan]);
  const covering = useMemo(() => coveringSummaries(wb.summaries), [wb.summaries]);
  const externalsByPosition = useMemo(() => {
    const map = new Map<number, ExternalCompactionInfo[]>();
    for (const e of detail.data?.externalCompactions_ ?? []) {
      const list = map.get(e.boundaryPosition);
      if (list) list.push(e);
      else map.set(e.boundaryPosition, [e]);
    }
    return map;
  }, [detail.data]);
  const highlight = useMemo(() => selectionRange(selection, { plan: wb.plan, summaries: wb.summaries }, detail.data?.externalCompactions_), [selection, wb.plan, wb.summaries, detail.data]);

  return { sessionId, turnCount, markers, protectedB, spans, covering, externalsByPosition, highlight };
}
