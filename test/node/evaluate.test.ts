/**
 * Probe evaluation (electron/engine/evaluate.ts, shared/probes/): probes built from a span's
 * facts; offline grading by text presence on every fixture session; and, against the scripted
 * OpenAI-compatible server on 127.0.0.1, the calls made, their prompts, the stored grades and a
 * judge that fails (retried once, then ungraded, never a score).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentBlock, Role } from '../../shared/model/turn.js';
import { extractTurnFacts } from '../../shared/facts/extract.js';
import { buildProbes, gradeByTextPresence } from '../../shared/probes/build.js';
import { ANSWER_SYSTEM, JUDGE_SYSTEM, parseJudgeReply, PROBE_PROMPT_VERSION } from '../../shared/probes/prompts.js';
import { evaluateVariant, PROBE_ATTEMPTS } from '../../electron/engine/evaluate.js';
import { runCompaction } from '../../electron/engine/engine.js';
import { runReplay } from '../../electron/engine/replay.js';
import { importFiles } from '../../electron/importers/import.js';
import { listProbeEvaluations } from '../../electron/store/probe-evaluations.js';
import { listVariants } from '../../electron/store/variants.js';
import { migrate, openDatabase } from '../../electron/store/db.js';
import { runCli } from '../../electron/cli/run.js';
import { fixtureDb, FIXTURES, type FixtureDb } from '../helpers/fixture-sessions.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from '../helpers/fake-openai-server.js';

let toolId = 0;
const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const use = (name: string, input: unknown): ContentBlock => ({ type: 'tool_use', id: `toolu_${++toolId}`, name, input });
const result = (content: string, isError = false): ContentBlock => ({ type: 'tool_result', tool_use_id: 'x', content, is_error: isError });
const turn = (role: Role, ...blocks: ContentBlock[]) => ({ role, blocks });

const SPAN = [
  turn('user', text('Add a `--dry-run` flag to the importer; keep the old CLI stable.')),
  turn('assistant', text('We will use a flag on ImportOptions instead of a new command, because the CLI must stay stable.'), use('Edit', { file_path: '/p/electron/importers/import.ts', old_string: 'a', new_string: 'b' })),
  turn('user', result('ok')),
  turn('assistant', use('Bash', { command: 'npx vitest run test/node/import.test.ts' })),
  turn('user', result('Exit code 1\nTypeError: dryRun is not a function', true)),
  turn('assistant', use('Bash', { command: 'npx vitest run' }), use('TodoWrite', { todos: [{ content: 'Document --dry-run', status: 'in_progress' }, { content: 'Release 1.2', status: 'pending' }] })),
  turn('user', result('12 passed'), result('ok')),
  turn('assistant', use('Bash', { command: 'git commit -m "Add --dry-run to the importer"' })),
  turn('user', result('[main abc123] Add --dry-run to the importer')),
];

describe('probes of a span', () => {
  it('one per kind of answer the span holds: the request, the files changed and how, the commit, what is in progress, a decision, an error and its fix', () => {
    const probes = buildProbes(extractTurnFacts(SPAN), SPAN);
    expect(probes.map((p) => [p.id, p.kind])).toEqual([
      ['request', 'recall'],
      ['files', 'artifact'],
      ['commits', 'artifact'],
      ['next', 'continuation'],
      ['decision', 'decision'],
      ['error', 'recall'],
    ]);
    const by = Object.fromEntries(probes.map((p) => [p.id, p]));
    expect(by.files.reference).toBe('- /p/electron/importers/import.ts: edited');
    expect(by.commits.needles).toEqual(['Add --dry-run to the importer']);
    expect(by.next.reference).toBe('- in progress: Document --dry-run\n- next: Release 1.2');
    expect(by.decision.reference).toContain('because the CLI must stay stable');
    // `npx vitest run` ran the same target (`npx vitest`) afterwards and succeeded.
    expect(by.error.reference).toBe('- error: TypeError: dryRun is not a function (from `npx vitest run test/node/import.test.ts`)\n- fixed later: a later run on the same target or file succeeded');
    expect(by.request.needles).toEqual(['--dry-run']);
  });

  it('the offline grade is the share of an answer\'s strings present in the context, 0–5', () => {
    const [files] = buildProbes(extractTurnFacts(SPAN), SPAN).filter((p) => p.id === 'files');
    expect(gradeByTextPresence(files, 'edited /p/electron/importers/import.ts')).toBe(5);
    expect(gradeByTextPresence(files, 'edited import.ts')).toBe(0);
  });

  it('a judge reply is a grade only when it holds an integer 0–5', () => {
    expect(parseJudgeReply('{"score": 4, "reason": "close"}')).toEqual({ score: 4, reason: 'close' });
    expect(parseJudgeReply('Sure! ```json\n{"score": "3"}\n```')).toEqual({ score: 3, reason: '' });
    for (const bad of ['{"score": 7}', '{"score": 2.5}', 'four', '{"reason": "x"}', '{score: 4}']) expect(parseJudgeReply(bad), bad).toBeNull();
  });
});

describe('offline (text presence) on every fixture session', { timeout: 300_000 }, () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());

  it('evaluates a window compaction of every session and stores each result; the spotter baseline beside it', async () => {
    let evaluated = 0;
    let withProbes = 0;
    let baselines = 0;
    for (const s of f.sessions) {
      const r = await runCompaction(f.db, { sessionId: s.id, strategy: 'window', params: { keepFirst: 1, maxTurns: 4 } });
      if (r.status !== 'completed') continue;
      const out = await evaluateVariant(f.db, { variantId: r.variantId, judge: null });
      evaluated++;
      expect(out.variant.mode).toBe('text');
      expect(out.variant.promptVersion).toBe(PROBE_PROMPT_VERSION);
      for (const p of out.variant.results) {
        expect(Number.isInteger(p.score) && p.score! >= 0 && p.score! <= 5, `${s.sourceFile} ${p.id}`).toBe(true);
        expect(p.answer).toBeNull();
      }
      if (out.variant.results.length > 0) withProbes++;
      if (out.source) baselines++;
      const stored = listProbeEvaluations(f.db, r.variantId);
      expect(stored.map((e) => e.subject)).toEqual(out.source ? ['variant', 'source'] : ['variant']);
      expect(stored[0]).toEqual(out.variant);
      const row = listVariants(f.db, s.id).find((v) => v.id === r.variantId)!;
      expect(row.probes?.mode).toBe('text');
      expect(row.probes?.probes).toBe(out.variant.results.length);
    }
    // Every session the window compacts (25: those longer than its 1 + 4 turns); 21 of their
    // dropped spans hold an answer to ask about (the other 4 drop only tool output and narration:
    // no probe, so nothing is graded). Claude Code compacted only spotter 258c7280 itself: the one baseline.
    expect(f.sessions.length).toBe(30);
    expect(evaluated).toBe(25);
    expect(withProbes).toBe(21);
    expect(baselines).toBe(1);
  });
});

describe('with a judge on the scripted server', { timeout: 120_000 }, () => {
  let t: TempDb;
  let server: FakeOpenAiServer;
  let sessionId: number;
  let variantId: number;
  beforeAll(async () => {
    t = tempDb('cs-evaluate-');
    sessionId = importFiles(t.db, [path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl')]).sessions[0].id;
    const r = await runReplay(t.db, { sessionId, strategy: 'dag' });
    expect(r.status).toBe('completed');
    variantId = r.variantId;
    server = await startFakeOpenAiServer();
  });
  afterAll(async () => {
    await server.close();
    t.cleanup();
  });

  const isJudge = (req: RecordedRequest) => req.body?.messages[0].content === JUDGE_SYSTEM;

  it('asks each probe of the model with the compacted context, then the judge; stores the grades; the source baseline the same way', async () => {
    const before = server.requests.length;
    server.script((req) => (isJudge(req) ? { kind: 'text', text: '{"score": 3, "reason": "partly"}' } : { kind: 'text', text: 'It edited lib/foo.ex.' }));
    const out = await evaluateVariant(t.db, { variantId, judge: { baseURL: server.baseURL, model: 'answerer', judgeModel: 'grader' } });
    const n = out.variant.results.length + out.source!.results.length;
    expect(out.variant.results.length).toBeGreaterThanOrEqual(4);
    // One answer and one judge call per probe, answer first.
    const reqs = server.requests.slice(before);
    expect(reqs).toHaveLength(2 * n);
    expect(reqs.map((r) => r.body!.model)).toEqual(Array.from({ length: n }, () => ['answerer', 'grader']).flat());
    const [ask, judge] = reqs;
    expect(ask.body!.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(ask.body!.messages[0].content).toBe(ANSWER_SYSTEM);
    expect(ask.body!.messages[1].content).toMatch(/^<conversation>\n[\s\S]+\n<\/conversation>\n\nQuestion: What did the user ask for/);
    expect(ask.body!.temperature).toBe(0);
    expect(judge.body!.messages[1].content).toMatch(/^Question: What did the user ask for[\s\S]*\n\nReference answer \(from the session\):\n- Implement spotter-gqc\n\nCandidate answer:\nIt edited lib\/foo\.ex\.$/);
    // The variant's context is the replay's at its firing (call 78); the source's is Claude Code's summary and what followed.
    expect(out.variant.atCall).toBe(78);
    expect([out.source!.firstPosition, out.source!.lastPosition]).toEqual([0, 206]);
    const stored = listProbeEvaluations(t.db, variantId);
    expect(stored.slice(-2).map((e) => [e.subject, e.mode, e.answerModel, e.judgeModel])).toEqual([
      ['variant', 'judge', 'answerer', 'grader'],
      ['source', 'judge', 'answerer', 'grader'],
    ]);
    for (const e of stored.slice(-2)) for (const r of e.results) expect([r.score, r.answer, r.reason]).toEqual([3, 'It edited lib/foo.ex.', 'partly']);
    expect(listVariants(t.db, sessionId).find((v) => v.id === variantId)!.probes).toEqual({ mode: 'judge', promptVersion: PROBE_PROMPT_VERSION, probes: out.variant.results.length, graded: out.variant.results.length, meanScore: 3 });
  });

  it('a judge that fails is tried once more, then the probe is ungraded, never scored; a reply without a grade counts as a failure', async () => {
    const before = server.requests.length;
    let judgeCalls = 0;
    // The first probe's judge fails twice (500, then a reply with no grade): ungraded. The second's
    // fails once then grades 5. Every later one grades 2.
    server.script((req) => {
      if (!isJudge(req)) return { kind: 'text', text: 'an answer' };
      judgeCalls++;
      if (judgeCalls === 1) return { kind: 'status', status: 500 };
      if (judgeCalls === 2) return { kind: 'text', text: 'I think it is good.' };
      if (judgeCalls === 3) return { kind: 'garbage' };
      if (judgeCalls === 4) return { kind: 'text', text: '{"score": 5}' };
      return { kind: 'text', text: '{"score": 2, "reason": "some"}' };
    });
    const out = await evaluateVariant(t.db, { variantId, judge: { baseURL: server.baseURL, model: 'm' } });
    const [first, second, ...rest] = out.variant.results;
    expect(first.score).toBeNull();
    expect(first.reason).toBe('ungraded: judge: the reply held no grade');
    expect(first.answer).toBe('an answer');
    expect(second.score).toBe(5);
    for (const r of rest) expect(r.score).toBe(2);
    const probes = out.variant.results.length + out.source!.results.length;
    // Answers: one per probe; judges: one per probe plus the two retries.
    expect(server.requests.length - before).toBe(2 * probes + 2);
    expect(PROBE_ATTEMPTS).toBe(2);
    const row = listVariants(t.db, sessionId).find((v) => v.id === variantId)!.probes!;
    expect([row.probes, row.graded]).toEqual([out.variant.results.length, out.variant.results.length - 1]);
    expect(row.meanScore).toBe(Math.round(((5 + 2 * rest.length) / (1 + rest.length)) * 100) / 100);
  });

  it('a model that cannot answer leaves every probe ungraded and the judge unasked', async () => {
    const before = server.requests.length;
    server.script(() => ({ kind: 'status', status: 503 }));
    const out = await evaluateVariant(t.db, { variantId, judge: { baseURL: server.baseURL, model: 'm' } });
    const probes = out.variant.results.length + out.source!.results.length;
    expect(server.requests.length - before).toBe(PROBE_ATTEMPTS * probes);
    for (const r of [...out.variant.results, ...out.source!.results]) expect([r.score, r.answer, r.reason.startsWith('ungraded: answer: ')]).toEqual([null, null, true]);
  });

  it('`evaluate` in the CLI: offline by default, labelled a weaker check; --judge openai against the server; --json', async () => {
    const cli = async (args: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli([...args, '--db', t.dbPath], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env: { PATH: process.env.PATH }, cwd: t.dir });
      return { code, stdout, stderr };
    };
    const offline = await cli(['evaluate', String(sessionId), '--variant', String(variantId)]);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toMatch(new RegExp(`^Variant ${variantId} \\(dag\\): turns \\d+-\\d+ at call 78: probes \\d\\.\\d\\d/5 \\(text presence, a weaker check\\) \\[${PROBE_PROMPT_VERSION}\\]$`, 'm'));
    expect(offline.stdout).toMatch(/^Baseline: the source tool's own compaction: turns 0-206: probes/m);
    expect(offline.stdout).toContain('a weaker check than a judged answer');
    server.script((req) => (isJudge(req) ? { kind: 'text', text: '{"score": 4, "reason": "good"}' } : { kind: 'text', text: 'x' }));
    const judged = await cli(['evaluate', String(sessionId), '--variant', String(variantId), '--at-call', '78', '--judge', 'openai', '--base-url', server.baseURL, '--model', 'm', '--json']);
    expect(judged.code).toBe(0);
    const doc = JSON.parse(judged.stdout) as { variant: { summary: { mode: string; meanScore: number } }; source: { summary: { meanScore: number } } };
    expect([doc.variant.summary.mode, doc.variant.summary.meanScore, doc.source.summary.meanScore]).toEqual(['judge', 4, 4]);
    expect((await cli(['evaluate', String(sessionId), '--variant', String(variantId), '--judge', 'openai'])).code).toBe(2);
  });
});

describe('migration 15', () => {
  it('adds probe_evaluations to a database at version 14 and leaves the rest as it was', () => {
    const db = openDatabase(':memory:', { toVersion: 14 });
    const tables = () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    const before = tables();
    migrate(db, 15);
    expect(tables()).toEqual([...before, 'probe_evaluations'].sort());
    expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'probe_evaluations'").pluck().get()).toMatch(/STRICT$/);
    db.close();
  });
});
