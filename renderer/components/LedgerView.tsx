/**
 * A loss ledger as the window shows it: retention per category as small bars with
 * "kept/total", the text-level score of the same span beside the fact score, the most salient lost facts ("lost: `lib/foo.ex` (edited 4×), …"),
 * and the kept ones collapsed. Presentational: the DAG inspector (a summary, the source
 * tool's own compaction) and the Timeline (a firing, the source's compaction) pass it a
 * stored ledger (shared/facts SummaryLedger).
 */
import { memo } from 'react';
import { FACT_CATEGORIES, type LedgerEntry, type SummaryLedger } from '../../shared/facts/types.js';
import { TEXT_STRING_KINDS, textRetentionLabel, type TextRetention } from '../../shared/retention/text.js';

function FactList({ entries, testId }: { entries: readonly LedgerEntry[]; testId: string }) {
  return (
    <ul className="ledger-facts" data-testid={testId}>
      {entries.map((e, i) => (
        <li key={`${e.category}:${e.text}:${i}`}>
          <span className="ledger-cat">{e.category}</span> <code>{e.text}</code>
          {e.detail ? <span className="muted"> ({e.detail})</span> : null}
        </li>
      ))}
    </ul>
  );
}

/** The text-level score beside the fact ledger's (shared/retention/text.ts), with the first strings it lost. */
function TextScore({ text, testId }: { text: TextRetention | null | undefined; testId: string }) {
  const title = text
    ? [`Text-level: the span's concrete strings found as written in what the model receives`, ...TEXT_STRING_KINDS.filter((k) => text.byKind[k].total > 0).map((k) => `${k}: ${text.byKind[k].kept}/${text.byKind[k].total}`), ...(text.lost.length > 0 ? [`lost: ${text.lost.slice(0, 6).join(' · ')}`] : [])].join('\n')
    : 'Text-level score not measured (stored before it existed)';
  return (
    <span className="muted small" title={title} data-testid={testId} data-kept={text?.kept ?? ''} data-total={text?.total ?? ''}>
      {' · '}
      {textRetentionLabel(text).replace(/^text/, 'text-level')}
    </span>
  );
}

export const LedgerView = memo(function LedgerView({ ledger, title, testId = 'ledger' }: { ledger: SummaryLedger | null | undefined; title: string; testId?: string }) {
  if (!ledger) {
    return (
      <div className="ledger muted small" data-testid={testId} data-empty="true">
        {title}: no ledger (nothing compacted, or written before the ledger existed).
      </div>
    );
  }
  const kept = FACT_CATEGORIES.reduce((n, c) => n + ledger.retention[c].kept, 0);
  const total = FACT_CATEGORIES.reduce((n, c) => n + ledger.retention[c].total, 0);
  return (
    <div className="ledger" data-testid={testId} data-kept={kept} data-total={total}>
      <div className="ledger-head">
        <span className="section-title">{title}</span>
        <span className="muted small" title="Fact ledger: the span's facts (shared/facts) that survive in what the model receives">
          fact ledger {kept}/{total} kept{total > 0 ? ` (${Math.round((100 * kept) / total)}%)` : ''}
        </span>
        <TextScore text={ledger.text} testId={`${testId}-text`} />
      </div>
      <div className="ledger-bars">
        {FACT_CATEGORIES.filter((c) => ledger.retention[c].total > 0).map((c) => {
          const r = ledger.retention[c];
          return (
            <div key={c} className="ledger-bar" data-testid="ledger-bar" data-category={c} title={`${c}: ${r.kept} of ${r.total} kept`}>
              <span className="ledger-bar-label">{c}</span>
              <span className="ledger-bar-track">
                <span className="ledger-bar-fill" style={{ width: `${(100 * r.kept) / r.total}%` }} />
              </span>
              <span className="ledger-bar-figure mono">
                {r.kept}/{r.total}
              </span>
            </div>
          );
        })}
      </div>
      {ledger.lost.length > 0 ? (
        <>
          <div className="ledger-sub small">lost (most salient first)</div>
          <FactList entries={ledger.lost.slice(0, 8)} testId={`${testId}-lost`} />
          {ledger.lost.length > 8 ? (
            <details className="ledger-more">
              <summary className="small">{ledger.lost.length - 8} more lost</summary>
              <FactList entries={ledger.lost.slice(8)} testId={`${testId}-lost-more`} />
            </details>
          ) : null}
        </>
      ) : (
        <div className="ledger-sub small">lost: nothing</div>
      )}
      {ledger.kept.length > 0 ? (
        <details className="ledger-more" data-testid={`${testId}-kept`}>
          <summary className="small">kept ({ledger.kept.length}{kept > ledger.kept.length ? ` of ${kept} shown` : ''})</summary>
          <FactList entries={ledger.kept} testId={`${testId}-kept-list`} />
        </details>
      ) : null}
    </div>
  );
});
