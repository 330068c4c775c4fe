/**
 * Claude Code links and titles: the first real request as the title (harness markup
 * skipped), the compaction agent tied to its compaction, Task calls linked to their
 * subagent sessions, and several files handed over in memory linked as the CLI links paths.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DB } from '../../electron/store/db.js';
import { childSessions, getSession } from '../../electron/store/sessions.js';
import { importFiles, importText, importTexts } from '../../electron/importers/import.js';

const CC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/claude-code');
const SPOTTER = '258c7280-ae70-4798-800f-63464d01a85d';
const WORKTREES = 'claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1';
const JSSOUND = 'claude-code-log__-Users-dain-workspace-JSSoundRecorder__7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl';
const read = (name: string): string => fs.readFileSync(path.join(CC, name), 'utf8');
/** The fixture's JSONL lines from `line` (1-based) on, as a new in-memory file. */
const from = (name: string, line: number): string => read(name).split('\n').slice(line - 1).join('\n');
const metaOf = (db: DB, id: number): Record<string, unknown> => getSession(db, id)!.metadata;

let db: DB;
beforeEach(() => {
  db = openDatabase(':memory:');
});
afterEach(() => db.close());

describe('Claude Code titles: the first real request', () => {
  it('keeps a slash command sent to the model as "/name args" (command-message markup dropped)', () => {
    expect(importFiles(db, [path.join(CC, JSSOUND)]).sessions[0].title).toBe('/init');
    expect(importFiles(db, [path.join(CC, 'spotter__subagent.jsonl')]).sessions[0].title).toBe(
      '/handgemacht:create-beads websearch to learn how to fastest setup credo, dialyz…',
    );
  });

  it('skips <ide_opened_file> and <ide_selection> context', () => {
    // Line 47 of JSSoundRecorder: "<ide_opened_file>The user opened the file …</ide_opened_file>\nOK, so this was …"
    expect(importText(db, 'from-47.jsonl', from(JSSOUND, 47)).sessions[0].title).toBe('OK, so this was just so you know what there is now, but after more than a decad…');
    // Line 169: an <ide_selection> of CLAUDE.md before the request.
    expect(importText(db, 'from-169.jsonl', from(JSSOUND, 169)).sessions[0].title).toBe("Let's also Migrate to AudioWorklet");
  });

  it('skips a local-command caveat, the local command and its output', () => {
    // Line 178 of ef958aa1: the caveat (isMeta), /exit, "<local-command-stdout>See ya!": no request follows.
    const [s] = importText(db, 'from-178.jsonl', from(`${WORKTREES}.jsonl`, 178)).sessions;
    expect(s.title).toBe('from-178');
  });

  it('skips <system-reminder> records before the request', () => {
    // The compaction agent's file alone: two system-reminder records, then the request.
    const [s] = importFiles(db, [path.join(CC, `spotter__${SPOTTER}__subagents__agent-acompact-fffbd0.jsonl`)]).sessions;
    expect(s.title).toBe("Your task is to create a detailed summary of the conversation so far, paying cl…");
  });
});

describe('Claude Code compaction agent', () => {
  it('ties agent-acompact-* to the compaction marker it produced, not a regular subagent', () => {
    const { sessions } = importFiles(db, [path.join(CC, `spotter__${SPOTTER}.jsonl`)]);
    const parent = sessions[0];
    const compactor = sessions.find((s) => s.agentId === 'acompact-fffbd0')!;
    expect(compactor.parentSessionId).toBe(parent.id);
    expect(compactor.title).toBe("Claude Code compaction call (auto, 167094 tokens): the summary before turn 207");
    expect(metaOf(db, compactor.id).compactionOf).toEqual({ sourceId: 'd46d6800-2f43-4360-ba84-c1de9c1ecbae', boundaryPosition: 207, trigger: 'auto', preTokens: 167094 });
    expect(metaOf(db, parent.id).compactionAgents).toEqual([{ agentId: 'acompact-fffbd0', compactionSourceId: 'd46d6800-2f43-4360-ba84-c1de9c1ecbae', boundaryPosition: 207 }]);
    // The regular subagent stays one, linked to its Task call.
    const research = sessions.find((s) => s.agentId === 'a881341')!;
    expect(metaOf(db, research.id).compactionOf).toBeUndefined();
    expect(metaOf(db, research.id).spawnedBy).toEqual({ toolUseId: 'toolu_01VmaERAwhb19LGUwu9GenaK', position: expect.any(Number) });
  });
});

describe('Task tool call -> subagent session', () => {
  it('links each Agent call of ef958aa1 to its subagent file (toolUseResult.agentId)', () => {
    const { sessions } = importFiles(db, [path.join(CC, `${WORKTREES}.jsonl`)]);
    const calls = metaOf(db, sessions[0].id).taskCalls as Array<{ toolUseId: string; position: number; description: string; agentId: string }>;
    expect(calls.map((c) => [c.description, c.agentId])).toEqual([
      ['Research Claude Code plan mode', 'a4ca7529859c158c2'],
      ['Research Claude Code teammates', 'a52886dc180afb356'],
      ['Research Steve Yegge Beads', 'ab1e6e141221a29ab'],
      ['Round 2: alice comparison', 'a36efb2a1231c41e2'],
      ['Round 2: bob comparison', 'aef063ba534d73153'],
      ['Round 2: carol comparison', 'a6aa8ad077d9ea083'],
    ]);
    const children = childSessions(db, sessions[0].id);
    expect(children).toHaveLength(6);
    for (const child of children) {
      const call = calls.find((c) => c.agentId === child.agentId)!;
      expect(metaOf(db, child.id).spawnedBy).toEqual({ toolUseId: call.toolUseId, position: call.position });
    }
  });

  it('records the agent of a Task call whose subagent lines are not in the file (spotter__subagent)', () => {
    const { sessions } = importFiles(db, [path.join(CC, 'spotter__subagent.jsonl')]);
    expect(metaOf(db, sessions[0].id).taskCalls).toEqual([{ toolUseId: 'toolu_01Cz2Pnv7qNcnK1ZiocxWhQX', position: expect.any(Number), description: 'Draft beads for linting setup', agentId: 'afb92ff' }]);
  });

  it('links inline sidechains of the old layout by the call prompt (5c0375b4)', () => {
    const { sessions } = importFiles(db, [path.join(CC, 'claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl')]);
    const children = sessions.filter((s) => s.parentSessionId === sessions[0].id);
    expect(children.map((c) => (metaOf(db, c.id).spawnedBy as { toolUseId: string } | undefined)?.toolUseId)).toEqual([
      'toolu_014YF9TXhDRR7BnpasNJ7gjC', // "Check package configuration" -> "Examine the package.json file(s)…"
      'toolu_01LKfUwrsnof18CpWZQcJH44', // "Analyze current project structure" -> "Analyze the current project structure…"
    ]);
    // Three Task calls, two sidechains in the file: the first call (answered by a plain string) ran no recorded agent.
    expect((metaOf(db, sessions[0].id).taskCalls as unknown[]).length).toBe(3);
  });
});

describe('importTexts: several files in memory, linked as the CLI links paths', () => {
  const subagentFiles = fs.readdirSync(CC).filter((f) => f.startsWith(`${WORKTREES}__subagents__`));

  it('links the ef958aa1 session and its subagents given as <session>/subagents/agent-x.jsonl (+ .meta.json)', () => {
    const files = [
      { fileName: `proj/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl`, text: read(`${WORKTREES}.jsonl`) },
      ...subagentFiles.map((f) => ({ fileName: `proj/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/${f.split('__subagents__')[1]}`, text: read(f) })),
    ];
    const { sessions } = importTexts(db, files);
    expect(sessions).toHaveLength(7);
    const children = childSessions(db, sessions[0].id);
    expect(children).toHaveLength(6);
    // The .meta.json descriptions title the children, as on disk.
    expect(children.map((c) => c.title).sort()).toEqual(['Research Claude Code plan mode', 'Research Claude Code teammates', 'Research Steve Yegge Beads', 'Round 2: alice comparison', 'Round 2: bob comparison', 'Round 2: carol comparison']);
    // Same sessions as importing the paths.
    const disk = openDatabase(':memory:');
    try {
      const fromDisk = importFiles(disk, [path.join(CC, `${WORKTREES}.jsonl`)]).sessions;
      expect(sessions.map((s) => [s.title, s.turns, s.toolCalls, s.parentSessionId === null])).toEqual(fromDisk.map((s) => [s.title, s.turns, s.toolCalls, s.parentSessionId === null]));
    } finally {
      disk.close();
    }
  });

  it('links 2.0.x sibling agent-x.jsonl files by the sessionId inside them, and the flattened form', () => {
    const coderabbit = fs.readdirSync(CC).filter((f) => f.includes('coderabbit-review-helper__agent-'));
    // No session file of coderabbit among the fixtures: the agents stay top-level sessions.
    const alone = importTexts(db, coderabbit.map((f) => ({ fileName: `rabbit/${f.split('__').at(-1)}`, text: read(f) })));
    expect(alone.sessions.every((s) => s.parentSessionId === null)).toBe(true);
    const flat = importTexts(db, [`spotter__${SPOTTER}.jsonl`, `spotter__${SPOTTER}__subagents__agent-a881341.jsonl`].map((f) => ({ fileName: `p/${f}`, text: read(f) })));
    expect(flat.sessions.map((s) => s.parentSessionId === null)).toEqual([true, false]);
  });
});
