/**
 * Parameter specs: one list per strategy drives the CLI's --set parsing, the window's
 * sliders (min/max/step) and validation. Each strategy file exports its specs with the
 * default and where it comes from (the published design it follows).
 */
export interface ParamSpec {
  name: string;
  label: string;
  /** The default value, from the strategy's published design. */
  default: number;
  min: number;
  /** Upper bound for the slider; `null` = unlimited (the slider then caps at sliderMax). */
  max: number | null;
  sliderMax?: number;
  step: number;
  /** 'int' values are rounded; 'float' kept; 'percent' are 0-100 ints. */
  kind: 'int' | 'float' | 'percent';
  unit?: string;
  /** What it does and where the default comes from. */
  doc: string;
  /** A special "unlimited" value (e.g. maxCondenseDepth), shown as ∞. */
  unlimitedValue?: number;
  /** How the window names the unlimited value (default "unlimited"; the masking first stage says "off"). */
  unlimitedLabel?: string;
  /**
   * A choice: the names of the values 0, 1, … (the window shows a select, the CLI and stored
   * variants accept the name as well as the number).
   */
  choices?: readonly string[];
}

/** A choice parameter's value by its name, or null when `v` names none of its choices. */
export function choiceValue(spec: ParamSpec, v: unknown): number | null {
  if (!spec.choices || typeof v !== 'string') return null;
  const i = spec.choices.indexOf(v.trim());
  return i >= 0 ? i : null;
}

/** A value as the window and the CLI name it: the choice's name, else the number. */
export function paramValueText(spec: ParamSpec, value: number): string {
  return spec.choices?.[value] ?? String(value);
}

export class ParamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParamError';
  }
}

/**
 * Resolves raw parameters (from the CLI, the window or a stored variant) against the
 * specs: fills defaults, parses numeric strings, rejects unknown names and out-of-range
 * values with a message naming the parameter and its range.
 */
export function resolveParams<P extends Record<string, number>>(strategy: string, specs: readonly ParamSpec[], raw: Record<string, unknown> | undefined): P {
  const out: Record<string, number> = {};
  const given = raw ?? {};
  for (const key of Object.keys(given)) {
    if (!specs.some((s) => s.name === key)) {
      throw new ParamError(`unknown parameter '${key}' for strategy ${strategy} (known: ${specs.map((s) => s.name).join(', ')})`);
    }
  }
  for (const spec of specs) {
    const v = given[spec.name];
    if (v === undefined || v === null || v === '') {
      out[spec.name] = spec.default;
      continue;
    }
    const named = choiceValue(spec, v);
    const n = named ?? (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
    if (!Number.isFinite(n)) throw new ParamError(spec.choices ? `parameter ${spec.name} must be one of ${spec.choices.join(', ')}, got ${JSON.stringify(v)}` : `parameter ${spec.name} must be a number, got ${JSON.stringify(v)}`);
    if (spec.unlimitedValue !== undefined && n === spec.unlimitedValue) {
      out[spec.name] = n;
      continue;
    }
    if ((spec.kind === 'int' || spec.kind === 'percent') && !Number.isInteger(n)) throw new ParamError(`parameter ${spec.name} must be a whole number, got ${n}`);
    if (n < spec.min || (spec.max !== null && n > spec.max)) {
      throw new ParamError(`parameter ${spec.name} must be between ${spec.min} and ${spec.max ?? '∞'}, got ${n}`);
    }
    out[spec.name] = n;
  }
  return out as P;
}

/**
 * The parameters a variant sets away from its strategy's spec defaults, in spec order:
 * how the variant table, the timeline's replay labels and the CLI's `variants` name a
 * variant without repeating every default.
 */
export function paramsAwayFromDefaults(specs: readonly ParamSpec[], params: Readonly<Record<string, unknown>>): Array<{ spec: ParamSpec; value: number }> {
  const out: Array<{ spec: ParamSpec; value: number }> = [];
  for (const spec of specs) {
    const v = params[spec.name];
    if (typeof v === 'number' && v !== spec.default) out.push({ spec, value: v });
  }
  return out;
}

/** Defaults of a spec list as a plain object. */
export function defaultsOf(specs: readonly ParamSpec[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of specs) out[s.name] = s.default;
  return out;
}

/** An input value the window or the CLI changed to fit its parameter's spec, and why. */
export interface ParamNote {
  name: string;
  given: number;
  used: number;
  /** e.g. "is below the minimum 1". */
  reason: string;
  /** e.g. "hardCapTokens 0 is below the minimum 1: using 1". */
  note: string;
}

/**
 * Fits one typed value to its spec: below the minimum → the minimum, above the maximum →
 * the maximum, a fraction for a whole-number parameter → rounded; the unlimited value is
 * kept. Returns the value used and, when it differs from the input, a note saying so (the
 * window shows it next to the field, the CLI on stderr and in its --json output).
 */
export function clampParam(spec: ParamSpec, given: number): { value: number; note: ParamNote | null } {
  if (spec.unlimitedValue !== undefined && given === spec.unlimitedValue) return { value: given, note: null };
  let value = given;
  let why = '';
  if (value < spec.min) {
    value = spec.min;
    why = `is below the minimum ${spec.min}`;
  } else if (spec.max !== null && value > spec.max) {
    value = spec.max;
    why = `is above the maximum ${spec.max}`;
  }
  if (spec.kind !== 'float' && !Number.isInteger(value)) {
    value = Math.round(value);
    if (!why) why = 'is not a whole number';
  }
  if (value === given) return { value, note: null };
  return { value, note: { name: spec.name, given, used: value, reason: why, note: `${spec.name} ${given} ${why}: using ${value}` } };
}

/**
 * Raw parameters with every numeric value fitted to its spec (`clampParam`), and the notes.
 * Unknown names and non-numbers pass through unchanged: `resolveParams` rejects them.
 */
export function clampParams(specs: readonly ParamSpec[], raw: Record<string, unknown> | undefined): { params: Record<string, unknown>; notes: ParamNote[] } {
  const params: Record<string, unknown> = { ...(raw ?? {}) };
  const notes: ParamNote[] = [];
  for (const spec of specs) {
    const v = params[spec.name];
    if (v === undefined || v === null || v === '') continue;
    const named = choiceValue(spec, v);
    if (named !== null) {
      params[spec.name] = named;
      continue;
    }
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (!Number.isFinite(n)) continue;
    const { value, note } = clampParam(spec, n);
    if (note) {
      params[spec.name] = value;
      notes.push(note);
    }
  }
  return { params, notes };
}
