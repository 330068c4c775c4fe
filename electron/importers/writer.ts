/**
 * Writes importer output into the store: one session row, its turns (blocks JSON,
 * plain text, char and token counts), tool cycles, external compactions and the model
 * calls the source reported usage for (one per assistant turn that carries it). Called
 * inside the import's single transaction; statements are prepared once per import.
 *
 * Performance: each turn's blocks are serialised once and each block's text is
 * tokenized once; tool cycles are paired while streaming (the same rule as
 * shared pairToolCycles: nearest preceding call of the id), so a streamed JSONL
 * file is never held in memory as a whole.
 */
import type Database from 'better-sqlite3';
import { blockToText } from '../../shared/model/turn.js';
import { isPlaceholderUsage } from '../../shared/usage/placeholder.js';
import type { DB } from '../store/db.js';
import { prepareInsertModelCall } from '../store/model-calls.js';
import { countTokens, type TokenizerName } from '../tokenizer.js';
import type { ImportedSession, ImportedSessionTurn } from './types.js';

export interface SessionSource {
  sourceFile: string;
  sourceHash: string;
  parentSessionId: number | null;
}

export class SessionWriter {
  private readonly insertSession: Database.Statement;
  private readonly insertTurn: Database.Statement;
  private readonly insertCycle: Database.Statement;
  private readonly insertCompaction: Database.Statement;
  private readonly finishSession: Database.Statement;
  private readonly insertModelCall: ReturnType<typeof prepareInsertModelCall>;

  constructor(
    db: DB,
    private readonly tokenizer: TokenizerName,
    private readonly createdAt: string,
  ) {
    this.insertSession = db.prepare(
      `INSERT INTO sessions (title, format, source_file, source_hash, created_at, parent_session_id, agent_id, tokenizer)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertTurn = db.prepare(
      `INSERT INTO turns (session_id, position, role, blocks, text, char_count, token_count, source_ids, timestamp, model, agent_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertCycle = db.prepare(
      `INSERT INTO tool_cycles (session_id, tool_use_id, tool_name, use_position, result_position, is_error) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.insertCompaction = db.prepare(
      `INSERT INTO external_compactions (session_id, trigger, pre_tokens, summary_text, summary_token_count, first_position, last_position, boundary_position, source_id, timestamp)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertModelCall = prepareInsertModelCall(db);
    // The sessions table has no immutability trigger: totals are known only after the turns.
    this.finishSession = db.prepare(
      `UPDATE sessions SET title = ?, started_at = ?, turn_count = ?, token_count = ?, tool_call_count = ?, metadata = ? WHERE id = ?`,
    );
  }

  /** Writes one session (and, recursively, its children); returns its id. */
  write(session: ImportedSession, source: SessionSource): number {
    const sessionId = Number(
      this.insertSession.run(session.title, session.format, source.sourceFile, source.sourceHash, this.createdAt, source.parentSessionId, session.agentId ?? null, this.tokenizer)
        .lastInsertRowid,
    );
    const lastUse = new Map<string, { position: number; name: string }>();
    let position = 0;
    let tokenTotal = 0;
    let toolCalls = 0;
    let startedAt: string | null = null;
    for (const turn of session.turns) {
      const written = this.writeTurn(sessionId, position, turn);
      if (turn.usage && turn.role === 'assistant') {
        // tokenTotal is still the transcript before this call: what the placeholder rule compares against.
        const u = turn.usage;
        this.insertModelCall(sessionId, { ...u, position, turnId: written.turnId, placeholder: isPlaceholderUsage(u, tokenTotal) });
      }
      tokenTotal += written.tokens;
      startedAt ??= turn.timestamp ?? null;
      for (const b of turn.blocks) {
        if (b.type !== 'tool_result') continue;
        const use = lastUse.get(b.tool_use_id);
        if (use) this.insertCycle.run(sessionId, b.tool_use_id, use.name, use.position, position, b.is_error ? 1 : 0);
      }
      // Uses are registered after results: a turn never answers its own calls.
      for (const b of turn.blocks) {
        if (b.type !== 'tool_use') continue;
        lastUse.set(b.id, { position, name: b.name });
        toolCalls++;
      }
      position++;
    }
    for (const c of session.externalCompactions) {
      this.insertCompaction.run(
        sessionId,
        c.trigger,
        c.preTokens,
        c.summaryText,
        countTokens(c.summaryText, this.tokenizer),
        c.firstPosition,
        c.lastPosition,
        c.boundaryPosition,
        c.sourceId ?? null,
        c.timestamp ?? null,
      );
    }
    this.finishSession.run(session.title, startedAt, position, tokenTotal, toolCalls, JSON.stringify(session.metadata ?? {}), sessionId);
    (session.children ?? []).forEach((child, i) => {
      this.write(child, {
        sourceFile: child.sourceFile ?? source.sourceFile,
        // Inline sidechains share their parent's file: a derived, stable hash per agent.
        sourceHash: child.sourceHash ?? `${source.sourceHash}#${child.agentId ?? `child-${i}`}`,
        parentSessionId: sessionId,
      });
    });
    return sessionId;
  }

  /** One turn row; returns its id and token count. */
  private writeTurn(sessionId: number, position: number, turn: ImportedSessionTurn): { turnId: number; tokens: number } {
    let text: string;
    let tokens: number;
    if (turn.blocks.length === 1) {
      text = blockToText(turn.blocks[0]);
      tokens = countTokens(text, this.tokenizer);
    } else {
      // Token count = sum over blocks (electron/tokenizer.ts countBlockTokens), each block's text computed once.
      const texts = turn.blocks.map(blockToText);
      tokens = 0;
      for (const t of texts) tokens += countTokens(t, this.tokenizer);
      text = texts.join('\n');
    }
    const { lastInsertRowid } = this.insertTurn.run(
      sessionId,
      position,
      turn.role,
      JSON.stringify(turn.blocks),
      text,
      text.length,
      tokens,
      JSON.stringify(turn.sourceIds),
      turn.timestamp ?? null,
      turn.model ?? null,
      turn.agentId ?? null,
    );
    return { turnId: Number(lastInsertRowid), tokens };
  }
}
