/**
 * The reference replay: each strategy's live rule as its design states it (the files beside
 * this one), dispatched by name. The executable specification the fast replay is checked
 * against (shared/replay/check.ts); never used by the window.
 */
import type { StrategyName } from '../../strategies/types.js';
import type { DagParams } from '../../strategies/dag.js';
import type { RollingLiveParams } from '../../strategies/rolling.js';
import type { WatermarkParams } from '../../strategies/watermark.js';
import type { TwoLineParams } from '../../strategies/two-line.js';
import type { MaskingParams } from '../../strategies/masking.js';
import type { WindowParams } from '../../strategies/window.js';
import type { ForgettingParams } from '../../strategies/forgetting.js';
import type { RefResult, RefSession } from './common.js';
import { referenceDag } from './dag.js';
import { referenceRolling } from './rolling.js';
import { referenceWatermark } from './watermark.js';
import { referenceTwoLine } from './two-line.js';
import type { CodexParams } from '../../strategies/codex.js';
import type { ClaudeCodeParams } from '../../strategies/claude-code.js';
import { referenceClaudeCode, referenceCodex } from './native.js';
import { referenceForgetting, referenceMasking, referenceWindow } from './model-free.js';



export function referenceReplay(strategy: StrategyName, params: Record<string, number>, session: RefSession): RefResult {
  switch (strategy) {
    case 'dag':
      return referenceDag(session, params as DagParams);
    case 'rolling':
      return referenceRolling(session, params as RollingLiveParams);
    case 'watermark':
      return referenceWatermark(session, params as WatermarkParams);
    case 'two-line':
      return referenceTwoLine(session, params as TwoLineParams);
    case 'masking':
      return referenceMasking(session, params as MaskingParams);
    case 'window':
      return referenceWindow(session, params as WindowParams);
    case 'forgetting':
      return referenceForgetting(session, params as ForgettingParams);
    case 'codex':
      return referenceCodex(session, params as CodexParams);
    case 'claude-code':
      return referenceClaudeCode(session, params as ClaudeCodeParams);
    default: {
      const _exhaustive: never = strategy;
      return _exhaustive;
    }
  }
}
