/**
 * The window's live plan as of the variant's stored state (renderer/plan/stored-state.ts):
 * masking and window plan from scratch, so after their pass the plan alone would still say
 * "would compact"; their `live.visible` tells what the stored state leaves, and the window
 * shows the plan as applied. Real spotter session (306 turns, 140,001 tokens).
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { planFor } from '../../shared/strategies/index.js';
import type { PlanInput, StrategyName, VariantState } from '../../shared/strategies/types.js';
import type { TurnMeta } from '../../shared/model/turn.js';
import type { DB } from '../../electron/store/db.js';
import { importFiles } from '../../electron/importers/import.js';
import { turnMetaColumns } from '../../electron/services/session-views.js';
import { metasFromColumns } from '../../renderer/plan/metas.js';
import { planAsStored } from '../../renderer/plan/stored-state.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';

const SPOTTER = path.resolve(__dirname, '../fixtures/claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

let tmp: TempDb;
let db: DB;
let metas: TurnMeta[];
beforeAll(() => {
  tmp = tempDb('cs-stored-plan-');
  db = tmp.db;
  const [session] = importFiles(db, [SPOTTER], { discoverSubagents: false }).sessions;
  metas = metasFromColumns(turnMetaColumns(db, session.id));
});
afterAll(() => tmp.cleanup());

function asStored(strategy: StrategyName, params: Record<string, number>, state: VariantState) {
  const input: PlanInput<Record<string, number>> = { turns: metas, summaries: [], state, params };
  return planAsStored(strategy, input, planFor(strategy, input));
}

it('masking: planned before its pass, applied after it (now = after, the trigger says why it would not compact)', () => {
  const before = asStored('masking', { maskWindow: 10 }, {});
  expect(before.applied).toBe(false);
  expect(before.plan.trigger.compact).toBe(true);
  expect(before.plan.tokensBefore).toBe(140001);
  const boundary = before.plan.boundaries[0].position;
  const after = asStored('masking', { maskWindow: 10 }, { maskBoundary: boundary });
  expect(after.applied).toBe(true);
  expect(after.plan.trigger.compact).toBe(false);
  expect(after.plan.trigger.reason).toMatch(/^already compacted/);
  expect(after.plan.tokensBefore).toBe(after.plan.tokensAfter);
  expect(after.plan.spans).toEqual(before.plan.spans);
});

it('window: its stored dropped range makes the plan applied', () => {
  const params = { keepFirst: 1, maxTurns: 10 };
  const before = asStored('window', params, {});
  expect(before.applied).toBe(false);
  const span = before.plan.spans[0];
  const after = asStored('window', params, { droppedRanges: [[span.firstPosition, span.lastPosition]] });
  expect(after.applied).toBe(true);
  expect(after.plan.tokensBefore).toBe(before.plan.tokensAfter);
});

it('strategies without live.visible (dag) are left as planned', () => {
  const dag = asStored('dag', {}, { coveredUntil: 10 });
  expect(dag.applied).toBe(false);
});
