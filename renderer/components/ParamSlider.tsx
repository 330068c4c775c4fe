/**
 * One strategy parameter: a range input (testid `param-<name>`) for dragging and a number
 * field (`param-<name>-number`) for exact values, both bound to the same value; a choice
 * parameter (contextMeasure) is a select of its named values instead. The label's tooltip
 * carries the spec's doc (what it does, where the default comes from).
 */
import { memo, useEffect, useState } from 'react';
import { clampParam, type ParamNote, type ParamSpec } from '../../shared/strategies/params.js';
import { formatInt } from '../format.js';

/** Slider upper end: the spec's max, or its sliderMax for unbounded parameters. */
export function sliderMaxOf(spec: ParamSpec): number {
  if (spec.max !== null) return spec.max;
  return spec.sliderMax ?? Math.max(spec.default * 4, spec.min + spec.step * 100);
}

/** A parameter value as the window shows it (∞ for the unlimited value). */
export function formatParamValue(spec: ParamSpec, value: number): string {
  if (spec.choices) return spec.choices[value] ?? String(value);
  if (spec.unlimitedValue !== undefined && value === spec.unlimitedValue) return '∞';
  if (spec.kind === 'float') return String(Number(value.toFixed(4)));
  return formatInt(value);
}

/** A choice parameter (testid `param-<name>`): a select of its named values. */
function ParamChoice({ spec, value, onChange }: { spec: ParamSpec; value: number; onChange(name: string, value: number): void }) {
  return (
    <div className={`param${value === spec.default ? '' : ' changed'}`}>
      <label className="param-label" htmlFor={`param-${spec.name}`} title={`${spec.doc}\nDefault ${formatParamValue(spec, spec.default)}.`}>
        {spec.label}
      </label>
      <select id={`param-${spec.name}`} className="param-choice" data-testid={`param-${spec.name}`} value={value} onChange={(e) => onChange(spec.name, Number(e.currentTarget.value))}>
        {(spec.choices ?? []).map((name, i) => (
          <option key={name} value={i}>
            {name}
          </option>
        ))}
      </select>
    </div>
  );
}

export const ParamSlider = memo(function ParamSlider({ spec, value, onChange }: { spec: ParamSpec; value: number; onChange(name: string, value: number): void }) {
  return spec.choices ? <ParamChoice spec={spec} value={value} onChange={onChange} /> : <ParamRange spec={spec} value={value} onChange={onChange} />;
});

function ParamRange({ spec, value, onChange }: { spec: ParamSpec; value: number; onChange(name: string, value: number): void }) {
  // An "unlimited" special value sits one step past the slider's finite end.
  const hasUnlimited = spec.unlimitedValue !== undefined;
  const max = sliderMaxOf(spec) + (hasUnlimited ? spec.step : 0);
  // A range input's steps count from its min: align the grid to whole multiples of the step
  // (leafChunkTokens min 100 step 500 drags through 8000, 8500, not 8100, 8600) and clamp
  // the value to the spec's min instead.
  const gridMin = Math.floor(spec.min / spec.step + 1e-9) * spec.step;
  const unlimited = spec.unlimitedValue !== undefined && value === spec.unlimitedValue;
  // The number field is empty (showing ∞) for the unlimited value; typing a number sets a limit.
  const shown = unlimited ? '' : String(value);
  const [draft, setDraft] = useState(shown);
  useEffect(() => setDraft(shown), [shown]);
  // A typed value the spec does not allow is used at the nearest allowed one, and the field says so.
  const [clampNote, setClampNote] = useState<ParamNote | null>(null);
  useEffect(() => {
    if (clampNote && clampNote.used !== value) setClampNote(null);
  }, [clampNote, value]);
  const isDefault = value === spec.default;

  const commitDraft = () => {
    const n = Number(draft);
    if (draft.trim() === '' || !Number.isFinite(n)) return setDraft(shown);
    const { value: fitted, note } = clampParam(spec, n);
    setClampNote(note);
    if (fitted !== value) onChange(spec.name, fitted);
    else setDraft(shown);
  };

  return (
    <div className={`param${isDefault ? '' : ' changed'}`}>
      <label className="param-label" htmlFor={`param-${spec.name}`} title={`${spec.doc}\nDefault ${formatParamValue(spec, spec.default)}${spec.unit ? ` ${spec.unit}` : ''}; range ${spec.min}–${spec.max ?? '∞'}.`}>
        {spec.label}
        {spec.unit ? <span className="param-unit"> {spec.unit}</span> : null}
      </label>
      <input
        id={`param-${spec.name}`}
        className="param-range"
        data-testid={`param-${spec.name}`}
        type="range"
        min={gridMin}
        max={max}
        step={spec.step}
        value={unlimited ? max : Math.min(value, max)}
        onChange={(e) => {
          const v = Math.max(spec.min, Number(e.currentTarget.value));
          onChange(spec.name, hasUnlimited && v >= max ? spec.unlimitedValue! : v);
        }}
      />
      <span className="param-value">
        <input
          className="param-number mono"
          data-testid={`param-${spec.name}-number`}
          aria-label={`${spec.label} value`}
          type="number"
          min={spec.min}
          max={spec.max ?? undefined}
          step={spec.step}
          value={draft}
          placeholder={unlimited ? `∞ ${spec.unlimitedLabel ?? 'unlimited'}` : undefined}
          onChange={(e) => setDraft(e.currentTarget.value)}
          onBlur={commitDraft}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commitDraft();
          }}
        />
      </span>
      {clampNote ? (
        <span className="param-note" role="status" data-testid={`param-${spec.name}-note`}>
          {formatParamValue(spec, clampNote.given)} {clampNote.reason}: using {formatParamValue(spec, clampNote.used)}
        </span>
      ) : null}
    </div>
  );
}
