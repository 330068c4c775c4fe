/**
 * The `contextMeasure` parameter of every strategy with a token threshold (dag, rolling,
 * watermark, two-line): which count of the context its thresholds are compared with
 * (shared/usage/measure.ts). Masking, window and forgetting count turns and tool cycles, not
 * tokens, so they have no such parameter.
 */
import type { ParamSpec } from './params.js';
import { CONTEXT_MEASURE_CHOICES, MEASURE_AUTO } from '../usage/measure.js';

export const contextMeasureSpec: ParamSpec = {
  name: 'contextMeasure',
  label: 'Context measure',
  default: MEASURE_AUTO,
  min: 0,
  max: CONTEXT_MEASURE_CHOICES.length - 1,
  step: 1,
  kind: 'int',
  choices: CONTEXT_MEASURE_CHOICES,
  doc: "What the token thresholds count. calibrated: the context as the provider counts it (the source's reported figure while the view is its transcript, else the session's usage fit a + b × transcript); transcript: the raw tokenizer counts of the view. Default auto: calibrated when the session has reported usage to fit, else transcript.",
};
