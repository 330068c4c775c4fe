/**
 * Details of the selected thing: a stored summary (text, source turns, tokens, tier,
 * model, cache hit), a planned node (what the pass would summarize), or a compaction
 * recorded by the source tool (its own summary, to compare with the app's); for a stored
 * summary and the source's compaction, its loss ledger (LedgerView).
 */
import { memo } from 'react';
import type { ExternalCompactionInfo } from '../../shared/contract.js';
import { useSessionDetail } from '../api/queries.js';
import { formatInt, formatTime } from '../format.js';
import type { Workbench } from '../plan/use-workbench.js';
import { actions, useStudio } from '../state/store.js';
import { findPlanNode, findSummary } from './selection.js';
import { LedgerView } from './LedgerView.js';

function Field({ name, children }: { name: string; children: React.ReactNode }) {
  return (
    <>
      <dt>{name}</dt>
      <dd>{children}</dd>
    </>
  );
}

function TurnsLink({ first, last }: { first: number; last: number }) {
  return (
    <button type="button" className="link" onClick={() => actions.scrollTo(first)} title="Scroll the turn list to these turns">
      {first}–{last} ({formatInt(last - first + 1)} turns)
    </button>
  );
}

function ExternalDetails({ e }: { e: ExternalCompactionInfo }) {
  return (
    <>
      <div className="inspector-title">
        <span className="chip chip-external">source tool</span> compaction #{e.id}
      </div>
      <dl className="fields">
        <Field name="trigger">{e.trigger}</Field>
        <Field name="tokens before">{e.preTokens !== null ? formatInt(e.preTokens) : '—'}</Field>
        <Field name="covers turns"><TurnsLink first={e.firstPosition} last={e.lastPosition} /></Field>
        <Field name="summary">{formatInt(e.summaryTokenCount)} tokens</Field>
      </dl>
      <LedgerView ledger={e.ledger} title="Loss ledger (baseline: the source tool's own summary)" testId="inspector-ledger" />
      <pre className="summary-text" data-testid="inspector-text">{e.summaryText}</pre>
    </>
  );
}

export const Inspector = memo(function Inspector({ wb }: { wb: Workbench }) {
  const selection = useStudio((s) => s.selection);
  const detail = useSessionDetail(wb.session?.id ?? null);
  if (!selection) return null;

  let body: React.ReactNode = <div className="muted">The selected item is not part of this plan any more.</div>;
  if (selection.kind === 'external') {
    const e = detail.data?.externalCompactions_.find((x) => x.id === selection.externalId);
    if (e) body = <ExternalDetails e={e} />;
  } else {
    const summary = findSummary(wb.summaries, selection.nodeId);
    const node = findPlanNode(wb, selection.nodeId);
    if (summary) {
      body = (
        <>
          <div className="inspector-title">
            <span className={`chip chip-${summary.depth > 0 ? 'condensed' : 'leaf'}`}>{summary.kind}</span> summary s{summary.id} · depth {summary.depth}
            {summary.compacted ? <span className="chip">folded into a parent</span> : null}
          </div>
          <dl className="fields">
            <Field name="source turns"><TurnsLink first={summary.firstPosition} last={summary.lastPosition} /></Field>
            {summary.childIds.length > 0 ? <Field name="children">{summary.childIds.map((c) => `s${c}`).join(', ')}</Field> : null}
            <Field name="tokens">{formatInt(summary.tokenCount)} ({formatInt(summary.charCount)} chars)</Field>
            <Field name="tier">{summary.tier}</Field>
            <Field name="model">{summary.model} <span className="muted">prompt {summary.promptVersion}</span></Field>
            <Field name="cache hit">{summary.cacheHit ? 'yes' : 'no'}</Field>
            <Field name="run">{summary.runId !== null ? `#${summary.runId}` : '—'} <span className="muted">{formatTime(summary.createdAt)}</span></Field>
          </dl>
          <LedgerView ledger={summary.ledger} title="Loss ledger (its span against its text)" testId="inspector-ledger" />
          <pre className="summary-text" data-testid="inspector-text">{summary.text}</pre>
        </>
      );
    } else if (node) {
      const span = wb.plan?.spans.find((s) => s.id === node.id);
      const condense = wb.plan?.condense.find((c) => c.id === node.id);
      body = (
        <>
          <div className="inspector-title">
            <span className="chip chip-projected">planned</span> {node.id} · depth {node.depth}
          </div>
          <dl className="fields">
            <Field name="source turns"><TurnsLink first={node.firstPosition} last={node.lastPosition} /></Field>
            {span ? <Field name="purpose">{span.purpose}</Field> : null}
            {span ? <Field name="input">{formatInt(span.tokens)} tokens, {formatInt(span.chars)} chars</Field> : null}
            {span ? <Field name="target">~{formatInt(span.targetTokens)} tokens</Field> : null}
            {span?.priorSummaryId ? <Field name="prior summary">s{span.priorSummaryId}</Field> : null}
            {condense ? <Field name="condenses">{condense.childIds.join(', ')}</Field> : null}
            {condense ? <Field name="target">~{formatInt(condense.targetTokens)} tokens</Field> : null}
            <Field name="projected size">{formatInt(node.tokens)} tokens</Field>
          </dl>
          <div className="muted small">Not run yet: press Compact to create it.</div>
        </>
      );
    }
  }

  return (
    <section className="inspector" data-testid="inspector" aria-label="Selection details">
      <button type="button" className="inspector-close btn btn-ghost btn-small" onClick={() => actions.select(null)} aria-label="Close details">
        ✕
      </button>
      {body}
    </section>
  );
});
