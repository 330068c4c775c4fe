/**
 * Test helpers for the watermark / two-line tests: synthetic sessions written straight
 * into the real store (real token counts, real tool-cycle pairing) and a snapshot of the
 * turns table. (A temporary database: temp-db.ts.)
 */
import type { DB } from '../../electron/store/db.js';
import { countBlockTokens } from '../../electron/tokenizer.js';
import { blocksToText, pairToolCycles, type ContentBlock, type ImportedTurn, type Role } from '../../shared/model/turn.js';
import type { Summarizer, SummarizeRequest, SummarizeResult } from '../../shared/strategies/summarizer.js';

let hashCounter = 0;

/** Writes a session of `turns` into the store (as an importer would) and returns its id. */
export function insertSession(db: DB, turns: ImportedTurn[], title = 'synthetic'): number {
  return db.transaction(() => {
    const positioned = turns.map((t, position) => ({ ...t, position }));
    const tokens = positioned.map((t) => countBlockTokens(t.blocks));
    const cycles = pairToolCycles(positioned);
    const toolCalls = positioned.reduce((n, t) => n + t.blocks.filter((b) => b.type === 'tool_use').length, 0);
    const sessionId = Number(
      db
        .prepare('INSERT INTO sessions(title, format, source_file, source_hash, created_at, tokenizer, turn_count, token_count, tool_call_count) VALUES (?,?,?,?,?,?,?,?,?)')
        .run(title, 'synthetic', `${title}.json`, `h3-${process.pid}-${hashCounter++}-${title}`, '2026-01-01T00:00:00.000Z', 'o200k_base', turns.length, tokens.reduce((a, b) => a + b, 0), toolCalls).lastInsertRowid,
    );
    const ins = db.prepare('INSERT INTO turns(session_id, position, role, blocks, text, char_count, token_count, source_ids, timestamp, model, agent_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)');
    positioned.forEach((t, i) => {
      const text = blocksToText(t.blocks);
      ins.run(sessionId, t.position, t.role, JSON.stringify(t.blocks), text, text.length, tokens[i], JSON.stringify(t.sourceIds), t.timestamp ?? null, t.model ?? null, t.agentId ?? null);
    });
    const cyc = db.prepare('INSERT INTO tool_cycles(session_id, tool_use_id, tool_name, use_position, result_position, is_error) VALUES (?,?,?,?,?,?)');
    for (const c of cycles) cyc.run(sessionId, c.toolUseId, c.toolName, c.usePosition, c.resultPosition, c.isError ? 1 : 0);
    return sessionId;
  })();
}

/** Every row of the turns table, serialized: compared before and after a pass. */
export function turnsTableSnapshot(db: DB): string {
  return JSON.stringify(db.prepare('SELECT * FROM turns ORDER BY id').all());
}

export const text = (t: string): ContentBlock[] => [{ type: 'text', text: t }];
export const turn = (role: Role, blocks: ContentBlock[] | string, i = 0): ImportedTurn => ({ role, blocks: typeof blocks === 'string' ? text(blocks) : blocks, sourceIds: [`s${i}`] });

/** `words` distinct-ish words: with o200k_base " w123" style words are 2 tokens each. */
export function filler(seed: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(`w${(seed * 7919 + i) % 100000}`);
  return out.join(' ');
}

/**
 * A chat of `pairs` user/assistant exchanges, each turn `words` filler words, after one
 * system turn. Every `toolEvery`-th exchange (when given) is a tool cycle instead:
 * assistant tool_use, then a user tool_result.
 */
export function chatSession(pairs: number, words: number, toolEvery = 0): ImportedTurn[] {
  const turns: ImportedTurn[] = [turn('system', 'You are a careful coding agent.')];
  for (let k = 0; k < pairs; k++) {
    if (toolEvery > 0 && k % toolEvery === toolEvery - 1) {
      const id = `toolu_${k}`;
      turns.push(turn('assistant', [{ type: 'text', text: `step ${k}` }, { type: 'tool_use', id, name: 'Bash', input: { command: `cat file${k}.txt` } }]));
      turns.push(turn('user', [{ type: 'tool_result', tool_use_id: id, content: filler(k, words), is_error: false }]));
    } else {
      turns.push(turn('user', `question ${k}: ${filler(k, words)}`));
      turns.push(turn('assistant', `answer ${k}: ${filler(k + 1000, words)}`));
    }
  }
  return turns;
}

/** A model stand-in: short fixed answers, reported usage, optional failure or gate. */
export function scriptedSummarizer(o: {
  model?: string;
  fail?: boolean | ((req: SummarizeRequest) => boolean);
  tokensIn?: number;
  tokensOut?: number;
  /** Awaited before answering (to hold a pass in its slow step). */
  gate?: (req: SummarizeRequest) => Promise<void>;
  calls?: SummarizeRequest[];
}): Summarizer {
  return {
    kind: 'openai',
    model: o.model ?? 'gpt-4o-mini',
    promptVersion: 'test-1',
    async summarize(req: SummarizeRequest): Promise<SummarizeResult> {
      o.calls?.push(req);
      if (o.gate) await o.gate(req);
      const fail = typeof o.fail === 'function' ? o.fail(req) : o.fail;
      if (fail) throw new Error('HTTP 500 from the test summarizer');
      return { text: `summary of ${req.items.length} items (${req.purpose})`, model: o.model ?? 'gpt-4o-mini', tokensIn: o.tokensIn ?? 0, tokensOut: o.tokensOut ?? 0 };
    },
  };
}
