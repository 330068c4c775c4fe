/**
 * The built-in price and context-window tables (shared/cost/prices.ts, shared/cost/windows.ts)
 * as Settings shows them: every model's rates (USD per million tokens), its window, the date
 * each figure was read and its source, with the user's overrides applied — the figures every
 * cost on this database uses. The CLI's `prices` prints the same rows.
 */
import { memo } from 'react';
import { MODEL_PRICES, priceOf, type UserPrices } from '../../shared/cost/prices.js';
import { contextWindowOf, MODEL_CONTEXT_WINDOWS, type UserContextWindows } from '../../shared/cost/windows.js';

const rate = (x: number) => String(Math.round(x * 10_000) / 10_000);

export const PriceTable = memo(function PriceTable({ prices, windows }: { prices: UserPrices; windows: UserContextWindows }) {
  const names = [...new Set([...Object.keys(MODEL_PRICES), ...Object.keys(MODEL_CONTEXT_WINDOWS), ...Object.keys(prices), ...Object.keys(windows)])];
  return (
    <details className="price-table" data-testid="settings-price-table">
      <summary>Built-in prices and context windows ({names.length} models)</summary>
      <div className="timeline-totals-scroll">
        <table className="timeline-totals">
          <thead>
            <tr>
              <th>model</th>
              <th>input</th>
              <th>output</th>
              <th>5m write</th>
              <th>1h write</th>
              <th>cache read</th>
              <th>window</th>
              <th>as of · source</th>
            </tr>
          </thead>
          <tbody>
            {names.map((m) => {
              const p = priceOf(m, prices);
              const w = contextWindowOf(m, { user: windows });
              const priced = p.from === 'table' || p.from === 'user';
              return (
                <tr key={m} data-testid={`price-row-${m}`} data-from={p.from}>
                  <th>{m}</th>
                  {priced ? (
                    [p.input, p.output, p.cacheWrite5m, p.cacheWrite1h, p.cacheRead].map((x, i) => <td key={i}>{rate(x)}</td>)
                  ) : (
                    <td colSpan={5} className="muted">
                      unpriced (its calls are counted, never $0)
                    </td>
                  )}
                  <td>
                    {w.tokens.toLocaleString('en-US')}
                    {w.from === 'table' ? '' : ` (${w.from})`}
                  </td>
                  <td className="muted small">{p.from === 'user' || w.from === 'user' ? 'yours' : `${p.asOf ?? w.asOf ?? '–'} · ${p.source ?? w.source ?? '–'}`}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </details>
  );
});
