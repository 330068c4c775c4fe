/** Every strategy's pass by name. */
import type { StrategyName } from '../strategies/types.js';
import type { PassFn } from './context.js';
import { dagPass } from './dag.js';
import { rollingPass } from './rolling.js';
import { watermarkPass } from './watermark.js';
import { twoLinePass } from './two-line.js';
import { maskingPass } from './masking.js';
import { windowPass } from './window.js';
import { forgettingPass } from './forgetting.js';
import { codexPass } from './codex.js';
import { claudeCodePass } from './claude-code.js';

export const PASSES: Record<StrategyName, PassFn> = {
  dag: dagPass,
  rolling: rollingPass,
  watermark: watermarkPass,
  'two-line': twoLinePass,
  masking: maskingPass,
  window: windowPass,
  forgetting: forgettingPass,
  codex: codexPass,
  'claude-code': claudeCodePass,
};
