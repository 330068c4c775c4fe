/**
 * The probe set and its grader (shared/probes/grade.ts, test/probes/): every fixture session
 * whose source tool compacted it has 12 probes (3 of each kind) about the span it compacted,
 * each fact present in that span (the keys are answerable) and the trivial baselines (the
 * span's first or last 3,000 tokens) well below the source tool's own summary on the long
 * span (the keys are not so loose that any text passes).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factPresent, gradeProbes, PROBE_KINDS, ProbeSetSchema, type ProbeSet } from '../../shared/probes/grade.js';
import { itemsToSourceText, turnsToItems } from '../../shared/model/items.js';
import { listExternalCompactions, listTurns } from '../../electron/store/turns.js';
import { replacingSummary, trivialBaseline } from '../../bench/summary.js';
import { extractiveSummarize } from '../../shared/summarize/extractive.js';
import { countTokens } from '../../electron/tokenizer.js';
import { importFiles } from '../../electron/importers/import.js';
import { fixtureDb, type FixtureDb } from '../helpers/fixture-sessions.js';

const DIR = path.resolve(__dirname, '../probes');
const sets: ProbeSet[] = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort().map((f) => ProbeSetSchema.parse(JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8'))));

describe('probe grader', () => {
  it('a fact is present when one of its alternatives matches (case-insensitive); a probe scores its share of facts', () => {
    expect(factPresent(['spotter-gqc\\.6', '\\bgqc\\.6\\b'], 'task: GQC.6 in progress')).toBe(true);
    expect(factPresent(['\\b99b497c\\b'], 'commit 99b497cf')).toBe(false);
    const r = gradeProbes({ probes: [{ id: 'a', kind: 'artifact', question: 'commits?', facts: [['99b497c'], ['ceff8c3']] }, { id: 'c', kind: 'continuation', question: 'task?', facts: [['gqc\\.6']] }] }, 'commit 99b497c; task gqc.6');
    expect(r.grades.map((g) => [g.id, g.found, g.required])).toEqual([['a', 1, 2], ['c', 1, 1]]);
    expect([r.score, r.max, r.byKind.artifact, r.byKind.continuation, r.byKind.recall]).toEqual([1.5, 2, 0.5, 1, 0]);
  });
});

describe('the probe sets of the fixture sessions', () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
    // The Codex fixture (hand-written, not among the real formats the helper imports) carries a compaction too.
    const codex = path.resolve(__dirname, '../fixtures/codex');
    const added = importFiles(f.db, fs.readdirSync(codex).filter((x) => x.endsWith('.jsonl')).map((x) => path.join(codex, x))).sessions;
    f.sessions.push(...added);
  });
  afterAll(() => f.close());

  it('cover every session with a source-tool compaction: 12 probes, 3 per kind, every fact in the span', () => {
    const compacted = f.sessions.filter((s) => listExternalCompactions(f.db, s.id).some((c) => c.summaryText)).map((s) => path.basename(s.sourceFile)).sort();
    expect(sets.map((s) => s.session)).toEqual(compacted);
    for (const set of sets) {
      expect(set.probes.length, set.session).toBe(12);
      for (const k of PROBE_KINDS) expect(set.probes.filter((p) => p.kind === k).length, `${set.session} ${k}`).toBe(3);
      const s = f.sessions.find((x) => path.basename(x.sourceFile) === set.session)!;
      const [cc] = listExternalCompactions(f.db, s.id);
      expect([cc.firstPosition, cc.lastPosition], set.session).toEqual(set.span);
      const span = itemsToSourceText(turnsToItems(listTurns(f.db, s.id, { from: cc.firstPosition, to: cc.lastPosition + 1 })));
      // The answer keys are answerable from the span itself (an inferred answer, such as "uncommitted", is a conclusion from it).
      const inferred = new Set(set.probes.filter((p) => p.inferred).map((p) => p.id));
      expect(gradeProbes(set, span).grades.filter((g) => g.score < 1).map((g) => g.id), set.session).toEqual([...inferred]);
    }
  });

  it('on the long span the trivial baselines score well below the source tool’s summary', () => {
    const set = sets.find((s) => s.session.startsWith('spotter__'))!;
    const s = f.sessions.find((x) => path.basename(x.sourceFile) === set.session)!;
    const [cc] = listExternalCompactions(f.db, s.id);
    const span = itemsToSourceText(turnsToItems(listTurns(f.db, s.id, { from: cc.firstPosition, to: cc.lastPosition + 1 })));
    const source = gradeProbes(set, cc.summaryText!).score;
    for (const end of ['first', 'last'] as const) expect(gradeProbes(set, trivialBaseline(span, 3000, end)).score, end).toBeLessThanOrEqual(source / 2);
  });

  it('on the spotter span the app’s summary (dag, fresh tail 0) at no more tokens than Claude Code’s scores at least its score', () => {
    const set = sets.find((x) => x.session.startsWith('spotter__'))!;
    const s = f.sessions.find((x) => path.basename(x.sourceFile) === set.session)!;
    const [cc] = listExternalCompactions(f.db, s.id);
    const turns = listTurns(f.db, s.id, { from: cc.firstPosition, to: cc.lastPosition + 1 });
    const target = countTokens(cc.summaryText!);
    const app = replacingSummary((req) => extractiveSummarize(req, (t) => countTokens(t)), turns, target);
    expect(app.leaves).toBe(7);
    expect(countTokens(app.text)).toBeLessThanOrEqual(target);
    // Measured: the app 12 of 12, Claude Code 8 of 12.
    expect(gradeProbes(set, app.text).score).toBe(12);
    expect(gradeProbes(set, cc.summaryText!).score).toBe(8);
  });
});
