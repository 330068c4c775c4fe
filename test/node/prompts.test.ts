/**
 * The model path's prompt templates (shared/summarize/prompts.ts) on the wire: the OpenAI
 * summarizer against the fake server (test/helpers/fake-openai-server.ts records every
 * request) receives the template of its purpose and depth; an edited template changes the
 * prompt version, the variant and the cache key; the variant keeps the edited text and the
 * dag/jsonl exports carry it. Real fixture: the Claude Code spotter session.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DB } from '../../electron/store/db.js';
import { importFiles } from '../../electron/importers/import.js';
import { runCompaction } from '../../electron/engine/engine.js';
import { runReplay } from '../../electron/engine/replay.js';
import { listVariants } from '../../electron/store/variants.js';
import { exportFor } from '../../electron/services/collaborators.js';
import { createOpenAiSummarizer } from '../../electron/summarize/openai.js';
import type { SummarizeRequest } from '../../shared/strategies/summarizer.js';
import { CLAUDE_CODE_PROMPT_TEMPLATES, CLAUDE_CODE_SECTIONS, DEFAULT_PROMPT_TEMPLATES, HANDOFF_TEMPLATE_IDS, OPENAI_PROMPT_VERSION, PROMPT_TEMPLATE_IDS, SUMMARY_SECTIONS, openAiPromptVersion, presetOverrides, summaryOfAnswer, type PromptTemplateId } from '../../shared/summarize/prompts.js';
import { STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import { diffStats, lineDiff } from '../../shared/summarize/line-diff.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from '../helpers/fake-openai-server.js';
import { tempDb, tempDir, type TempDb } from '../helpers/temp-db.js';
import { memorySecretStore } from '../../electron/services/secrets.js';
import { createStudioService } from '../../electron/services/studio-service.js';
import type { Envelope, Settings, VariantInfo } from '../../shared/contract.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const PARAMS = { tokenBudget: 40000, leafChunkTokens: 8000 };

let server: FakeOpenAiServer;
let tmp: TempDb;
let db: DB;
let sessionId: number;
beforeAll(async () => {
  server = await startFakeOpenAiServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  tmp = tempDb('cs-prompts-', 'studio.sqlite');
  db = tmp.db;
  sessionId = importFiles(db, [SPOTTER]).sessions[0].id;
  server.requests.length = 0;
  server.script([]);
  server.setDefault({ kind: 'summary' });
});
afterEach(() => tmp.cleanup());

const openai = (prompts?: Partial<Record<PromptTemplateId, string>>) => ({ kind: 'openai' as const, baseURL: server.baseURL, model: 'fake-model', apiKey: 'test-key', maxRetries: 0, ...(prompts ? { prompts } : {}) });

/** The template a recorded request's system message was built from (its text minus the length line). */
function templateOf(r: RecordedRequest, templates: Record<PromptTemplateId, string> = DEFAULT_PROMPT_TEMPLATES): PromptTemplateId | null {
  const system = r.body!.messages[0].content;
  return PROMPT_TEMPLATE_IDS.find((id) => system.startsWith(`${templates[id]}\n\nAim for at most `) || system.startsWith(`${templates[id]}\n\nBe terse`)) ?? null;
}

describe('prompt templates', () => {
  it('every template asks for the nine hand-off sections in order, each saying what it holds; the watermark one asks for memory facts', () => {
    // The native tools' prompts (codex, claude-code) are quoted as they ship, with their own structure (test/node/native-strategies.test.ts).
    for (const id of PROMPT_TEMPLATE_IDS.filter((x) => x !== 'codex' && x !== 'claude-code')) {
      const at = SUMMARY_SECTIONS.map((s, i) => DEFAULT_PROMPT_TEMPLATES[id].indexOf(`\n${i + 1}. ${s}: `));
      expect(at.every((i) => i > 0), id).toBe(true);
      expect([...at].sort((a, b) => a - b), id).toEqual(at);
      // What a hand-off needs, named in the section that holds it.
      for (const needle of ['commits made (hash and subject)', 'tests that passed with their counts', 'uncommitted', 'never "the last one above"', 'because, so that, to avoid, instead of', 'message line (not the first line of the output)', 'still open', 'in full as written', 'rewritten in place is modified', 'whole with their quoting intact', 'namespaced names whole', 'environment variables']) {
        expect(DEFAULT_PROMPT_TEMPLATES[id], `${id}: ${needle}`).toContain(needle);
      }
    }
    expect(SUMMARY_SECTIONS).toEqual(['Goal and constraints', 'Done', 'In progress', 'Next step', 'Decisions and why', 'Errors and how they were resolved', 'Files', 'Commands and results', 'Key identifiers']);
    expect(DEFAULT_PROMPT_TEMPLATES.watermark).toContain('Memory facts:');
    expect(PROMPT_TEMPLATE_IDS.filter((id) => DEFAULT_PROMPT_TEMPLATES[id].includes('Memory facts'))).toEqual(['watermark']);
    // 9 distinct texts (7 hand-off templates and the two native tools' quoted prompts); the version is openai-3-<8 hex digits> of them (frame 3: the hand-off sections)
    expect(new Set(Object.values(DEFAULT_PROMPT_TEMPLATES)).size).toBe(9);
    expect(OPENAI_PROMPT_VERSION).toMatch(/^openai-3-[0-9a-f]{8}$/);
  });

  it('the Claude Code-style preset: an analysis step, then its nine published sections, selectable and versioned like an edit', () => {
    for (const id of HANDOFF_TEMPLATE_IDS) {
      const t = CLAUDE_CODE_PROMPT_TEMPLATES[id];
      const analysis = t.indexOf('wrap your analysis in <analysis> tags');
      const at = CLAUDE_CODE_SECTIONS.map((s, i) => t.indexOf(`\n${i + 1}. ${s}: `));
      expect(analysis, id).toBeGreaterThan(0);
      expect(at.every((i) => i > analysis), id).toBe(true);
      expect([...at].sort((a, b) => a - b), id).toEqual(at);
    }
    expect(CLAUDE_CODE_SECTIONS).toEqual(['Primary Request and Intent', 'Key Technical Concepts', 'Files and Code Sections', 'Errors and fixes', 'Problem Solving', 'All user messages', 'Pending Tasks', 'Current Work', 'Optional Next Step']);
    expect(presetOverrides('handoff')).toEqual({});
    const cc = presetOverrides('claude-code');
    expect(Object.keys(cc).sort()).toEqual([...HANDOFF_TEMPLATE_IDS].sort());
    expect(openAiPromptVersion(cc)).not.toBe(OPENAI_PROMPT_VERSION);
    expect(openAiPromptVersion(cc)).toMatch(/^openai-3-[0-9a-f]{8}$/);
    // The analysis is not part of the summary kept; an answer without tags is kept as it is.
    expect(summaryOfAnswer('<analysis>\nthinking\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   fix it\n</summary>')).toBe('1. Primary Request and Intent:\n   fix it');
    expect(summaryOfAnswer('Goal and constraints:\n- request: x\n')).toBe('Goal and constraints:\n- request: x\n');
  });

  it('each strategy lists the templates its pass uses; the model-free ones none', () => {
    expect(Object.fromEntries(Object.entries(STRATEGY_DEFINITIONS).map(([n, d]) => [n, d.prompts ?? []]))).toEqual({
      dag: ['leaf', 'condensed-1', 'condensed-2plus'],
      rolling: ['rolling'],
      watermark: ['watermark'],
      'two-line': ['chunk', 'digest'],
      masking: [],
      window: [],
      forgetting: [],
      codex: ['codex'],
      'claude-code': ['claude-code'],
    });
  });

  it('rolling, watermark, two-line chunk and digest requests each get their own template on the wire', async () => {
    const summarizer = createOpenAiSummarizer({ baseURL: server.baseURL, model: 'fake-model', apiKey: 'k', maxRetries: 0 });
    const items = [{ kind: 'turn' as const, role: 'user' as const, text: 'Please rename openDatabase to openStore in electron/store/db.ts and run npx vitest run test/node/db.test.ts.' }];
    const purposes: Array<[SummarizeRequest['purpose'], PromptTemplateId]> = [['rolling', 'rolling'], ['watermark', 'watermark'], ['chunk', 'chunk'], ['digest', 'digest']];
    for (const [purpose] of purposes) await summarizer.summarize({ purpose, items, priorSummary: purpose === 'digest' || purpose === 'rolling' ? 'Goal and requests: rename openDatabase.' : null, targetTokens: 80, tier: 'normal' });
    expect(server.requests.map((r) => templateOf(r))).toEqual(purposes.map(([, id]) => id));
    expect(server.requests[0].body!.messages[1].content).toContain('Previous summary (to be replaced by yours');
    expect(server.requests[1].body!.messages[0].content).toContain('Memory facts:');
    expect(server.requests[3].body!.messages[1].content).toContain('Digest to rewrite:\n<previous_summary>\nGoal and requests: rename openDatabase.');
  });
});

describe('dag prompts by depth, on the wire', () => {
  it('a replay of the spotter session sends leaf, depth-1 and depth-2+ prompts; depth-2+ children are labelled with depth, turns and time', async () => {
    const r = await runReplay(db, { sessionId, strategy: 'dag', params: { tokenBudget: 30000, leafChunkTokens: 3000, condensedMinFanout: 3 }, summarizer: openai() });
    expect(r.status).toBe('completed');
    // Every request is one of the three dag templates (no other text reached the wire).
    expect(new Set(server.requests.map((q) => templateOf(q)))).toEqual(new Set(['leaf', 'condensed-1', 'condensed-2plus']));
    const normal = server.requests.filter((q) => q.body!.temperature === 0.2);
    const byTemplate: Record<string, RecordedRequest[]> = {};
    for (const q of normal) (byTemplate[templateOf(q)!] ??= []).push(q);
    // One normal-tier request per summary the replay made and did not find in the cache, by depth
    // (the stored replay summaries: depth 0 leaves, 1, and ≥ 2).
    const made = db.prepare('SELECT depth, COUNT(*) AS n FROM summaries WHERE replay_run_id = ? AND cache_hit = 0 GROUP BY depth').all(r.runId) as Array<{ depth: number; n: number }>;
    const stored = [0, 1, 2].map((d) => made.filter((m) => (d === 2 ? m.depth >= 2 : m.depth === d)).reduce((n, m) => n + m.n, 0));
    expect([byTemplate.leaf.length, byTemplate['condensed-1'].length, byTemplate['condensed-2plus'].length]).toEqual(stored);
    expect(stored[2]).toBeGreaterThan(0);
    // The rest are aggressive-tier retries of leaves whose tiny span the fake's answer did not shorten.
    expect(server.requests.filter((q) => q.body!.temperature === 0).map((q) => templateOf(q))).toEqual(Array(server.requests.length - normal.length).fill('leaf'));
    for (const q of byTemplate['condensed-1']) {
      const user = q.body!.messages[1].content;
      expect(user).toContain('Summaries to merge into one depth-1 summary, oldest first');
      expect(user).not.toContain('summary (depth');
    }
    for (const q of byTemplate['condensed-2plus']) {
      const user = q.body!.messages[1].content;
      const depth = Number(/one depth-(\d+) summary/.exec(user)![1]);
      expect(depth).toBeGreaterThanOrEqual(2);
      // each child: "summary (depth d-1, turns a–b, YYYY-MM-DD HH:MM → HH:MM)" (the spotter session runs within one day)
      const labels = [...user.matchAll(/^summary \(depth (\d+), turns (\d+)–(\d+), (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) → (\d{2}:\d{2})\): /gm)];
      expect(labels.length).toBeGreaterThanOrEqual(3); // condensedMinFanout
      for (const l of labels) {
        expect(Number(l[1])).toBe(depth - 1);
        expect(Number(l[2])).toBeLessThanOrEqual(Number(l[3]));
      }
      // children are in turn order
      const firsts = labels.map((l) => Number(l[2]));
      expect([...firsts].sort((a, b) => a - b)).toEqual(firsts);
    }
    // the first depth-2 merge of the session: its children start at turn 0
    expect(byTemplate['condensed-2plus'][0].body!.messages[1].content).toMatch(/^Summaries to merge into one depth-2 summary, oldest first:\n<transcript>\nsummary \(depth 1, turns 0–\d+, 2026-02-11 20:36 → /);
  });
});

describe('an edited template', () => {
  it('changes the prompt version, the variant and the cache key; the default template still hits its cache', async () => {
    const edited = `${DEFAULT_PROMPT_TEMPLATES.leaf}\nAlso list every test file named.`;
    const first = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai() });
    // 18 leaves + 1 depth-1 condensation (engine-openai.test.ts runs the same pass)
    expect(server.requests).toHaveLength(19);

    server.requests.length = 0;
    const withEdit = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai({ leaf: edited }) });
    expect(withEdit.variantId).not.toBe(first.variantId);
    // every leaf misses the cache (new prompt version in the key) and carries the edited text; so does
    // the condensation (same version), whose template is unchanged: 19 requests again
    expect(server.requests).toHaveLength(19);
    expect(withEdit.stats).toMatchObject({ summarizerCalls: 19, cacheHits: 0 });
    const leaves = server.requests.filter((r) => templateOf(r, { ...DEFAULT_PROMPT_TEMPLATES, leaf: edited }) === 'leaf');
    expect(leaves).toHaveLength(18);

    const variants = listVariants(db, sessionId);
    const v1 = variants.find((v) => v.id === first.variantId)!;
    const v2 = variants.find((v) => v.id === withEdit.variantId)!;
    expect(v1.summarizer).toEqual({ kind: 'openai', baseURL: server.baseURL, model: 'fake-model', promptVersion: OPENAI_PROMPT_VERSION });
    expect(v2.summarizer).toEqual({ kind: 'openai', baseURL: server.baseURL, model: 'fake-model', promptVersion: openAiPromptVersion({ leaf: edited }), prompts: { leaf: edited } });
    expect(v2.summarizer.promptVersion).not.toBe(OPENAI_PROMPT_VERSION);

    // Another variant over the same spans (maxCondenseDepth differs) with the default template: all 19 from the cache.
    server.requests.length = 0;
    const again = await runCompaction(db, { sessionId, strategy: 'dag', params: { ...PARAMS, maxCondenseDepth: 3 }, summarizer: openai() });
    expect(again.stats).toMatchObject({ summarizerCalls: 0, cacheHits: 19 });
    expect(server.requests).toHaveLength(0);
    // ... and with the edited one: all 19 from the edited entries, none from the default's.
    const againEdited = await runCompaction(db, { sessionId, strategy: 'dag', params: { ...PARAMS, maxCondenseDepth: 3 }, summarizer: openai({ leaf: edited }) });
    expect(againEdited.stats).toMatchObject({ summarizerCalls: 0, cacheHits: 19 });
    expect(againEdited.variantId).not.toBe(again.variantId);
  });

  it('only the templates a strategy uses move its variant; a template edited back to its default is the default', async () => {
    const first = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai() });
    const rollingEdited = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai({ rolling: 'Keep only the decisions.' }) });
    expect(rollingEdited.variantId).toBe(first.variantId);
    const backToDefault = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai({ leaf: DEFAULT_PROMPT_TEMPLATES.leaf }) });
    expect(backToDefault.variantId).toBe(first.variantId);
    expect(listVariants(db, sessionId)).toHaveLength(1);
  });

  it('the dag and jsonl exports carry the prompt version and the edited text', async () => {
    const edited = `${DEFAULT_PROMPT_TEMPLATES['condensed-1']}\nName the fixture files.`;
    const run = await runCompaction(db, { sessionId, strategy: 'dag', params: PARAMS, summarizer: openai({ 'condensed-1': edited }) });
    const version = openAiPromptVersion({ 'condensed-1': edited });
    const dag = JSON.parse(exportFor(db, run.variantId, 'dag').content);
    expect(dag.summarizer).toEqual({ kind: 'openai', baseURL: server.baseURL, model: 'fake-model', promptVersion: version, prompts: { 'condensed-1': edited } });
    const summaryNodes = dag.nodes.filter((n: { type: string }) => n.type === 'summary');
    expect(summaryNodes).toHaveLength(19);
    for (const n of summaryNodes) expect(n.promptVersion).toBe(version);

    const lines = exportFor(db, run.variantId, 'jsonl').content.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ variant: { id: run.variantId, strategy: 'dag', params: expect.any(Object), summarizer: dag.summarizer } });
    expect(lines.slice(1).every((l: { role?: string }) => typeof l.role === 'string')).toBe(true);
  });
});

describe('the editor’s line diff', () => {
  it('marks an added line, a removed line and keeps the rest in order', () => {
    const base = DEFAULT_PROMPT_TEMPLATES.leaf;
    const lines = base.split('\n');
    const edited = [...lines.slice(0, 2), 'Name every test file.', ...lines.slice(3)].join('\n');
    const diff = lineDiff(base, edited);
    expect(diffStats(diff)).toEqual({ added: 1, removed: 1 });
    expect(diff.filter((d) => d.op !== ' ')).toEqual([
      { op: '-', text: lines[2] },
      { op: '+', text: 'Name every test file.' },
    ]);
    expect(diff.filter((d) => d.op !== '+').map((d) => d.text)).toEqual(lines);
    expect(diffStats(lineDiff(base, base))).toEqual({ added: 0, removed: 0 });
  });
});

describe('edited templates through the service', () => {
  it('setSettings keeps them, refuses an unknown template id, and a saved variant gets the edited its version and text', async () => {
    const dir = tempDir('cs-prompts-svc-');
    const service = await createStudioService({ dbPath: dir.dbPath, resourcesDir: path.join(dir.dir, 'none'), secrets: memorySecretStore({}), importDemo: false });
    try {
      const ok = <T,>(e: Envelope<unknown>): T => {
        if (!e.ok) throw new Error(`${e.error.code}: ${e.error.message}`);
        return e.value as T;
      };
      const id = ok<{ sessions: Array<{ id: number }> }>(await service.dispatch('importText', { fileName: 'chat.jsonl', text: [JSON.stringify({ role: 'user', content: 'hi' }), JSON.stringify({ role: 'assistant', content: 'hello' })].join('\n') })).sessions[0].id;
      const bad = await service.dispatch('setSettings', { summarizer: { kind: 'openai', baseURL: server.baseURL, prompts: { lead: 'typo' } } });
      expect(bad.ok).toBe(false);
      if (!bad.ok) expect(bad.error.code).toBe('invalid_input');
      const edited = `${DEFAULT_PROMPT_TEMPLATES.rolling}\nKeep the user's exact words.`;
      const saved = ok<Settings>(await service.dispatch('setSettings', { summarizer: { kind: 'openai', baseURL: server.baseURL, model: 'fake-model', prompts: { rolling: edited } } }));
      expect(saved.summarizer.prompts).toEqual({ rolling: edited });
      const rolling = ok<VariantInfo>(await service.dispatch('saveVariant', { sessionId: id, strategy: 'rolling', params: {} }));
      expect(rolling.summarizer).toMatchObject({ promptVersion: openAiPromptVersion({ rolling: edited }), prompts: { rolling: edited } });
      // dag does not use the rolling template: its variant keeps the default version and no overrides
      const dag = ok<VariantInfo>(await service.dispatch('saveVariant', { sessionId: id, strategy: 'dag', params: {} }));
      expect(dag.summarizer.promptVersion).toBe(OPENAI_PROMPT_VERSION);
      expect(dag.summarizer.prompts).toBeUndefined();
    } finally {
      await service.close();
      dir.cleanup();
    }
  });
});
