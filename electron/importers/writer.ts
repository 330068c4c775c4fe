/**
 * Writes importer output into the store: one session row, its turns (blocks JSON,
 * plain text, char and token counts), tool cycles, external compactions and the model
 * calls the source reported usage for (one per assistant turn that carries it). Called
 * inside the import's transaction (committed in chunks of IMPORT_CHUNK_MS, import.ts); the statements (electron/store/session-writes.ts)
 * are prepared once per import.
 *
 * Performance: each turn's blocks are serialised once and each block's text is
 * tokenized once; tool cycles are paired while streaming by the one pairing rule
 * (shared/model/turn.ts ToolCyclePairer: nearest preceding call of the id), so a
 * streamed JSONL file is never held in memory as a whole.
 */
import { blockToText, ToolCyclePairer } from '../../shared/model/turn.js';
import { isPlaceholderUsage } from '../../shared/usage/placeholder.js';
import type { DB } from '../store/db.js';
import { prepareSessionWrites, type SessionWrites } from '../store/session-writes.js';
import { countTokens, type TokenizerName } from '../tokenizer.js';
import type { ImportedSession, ImportedSessionTurn } from './types.js';

export interface SessionSource {
  sourceFile: string;
  sourceHash: string;
  parentSessionId: number | null;
}

/** Turns between two progress calls: often enough for a live count, rare enough to cost nothing. */
export const PROGRESS_EVERY_TURNS = 1000;

export class SessionWriter {
  private readonly rows: SessionWrites;
  private turnsWritten = 0;
  /** Every session row this writer inserted, parents before their children (a chunked import hides them until it is done). */
  readonly sessionIds: number[] = [];

  /**
   * `onTurns` is told the turns written so far every PROGRESS_EVERY_TURNS turns; it may
   * throw to stop the import (a cancel), which rolls the import's transaction back.
   * `afterTurn` runs after every turn (where a chunked import may commit, import.ts).
   */
  constructor(
    db: DB,
    private readonly tokenizer: TokenizerName,
    private readonly createdAt: string,
    private readonly onTurns?: (turnsWritten: number) => void,
    private readonly afterTurn?: (turnsWritten: number) => void,
  ) {
    this.rows = prepareSessionWrites(db);
  }

  /** Writes one session (and, recursively, its children); returns its id. */
  write(session: ImportedSession, source: SessionSource): number {
    const sessionId = this.rows.insertSession({
      title: session.title,
      format: session.format,
      sourceFile: source.sourceFile,
      sourceHash: source.sourceHash,
      createdAt: this.createdAt,
      parentSessionId: source.parentSessionId,
      agentId: session.agentId ?? null,
      tokenizer: this.tokenizer,
    });
    this.sessionIds.push(sessionId);
    const pairer = new ToolCyclePairer();
    let position = 0;
    let tokenTotal = 0;
    let toolCalls = 0;
    let startedAt: string | null = null;
    for (const turn of session.turns) {
      const written = this.writeTurn(sessionId, position, turn);
      if (turn.usage && turn.role === 'assistant') {
        // tokenTotal is still the transcript before this call: what the placeholder rule compares against.
        const u = turn.usage;
        this.rows.insertModelCall(sessionId, { ...u, position, turnId: written.turnId, placeholder: isPlaceholderUsage(u, tokenTotal) });
      }
      tokenTotal += written.tokens;
      startedAt ??= turn.timestamp ?? null;
      // The one pairing rule (shared/model/turn.ts), fed as the turns stream by.
      for (const c of pairer.turn(position, turn.blocks)) this.rows.insertToolCycle({ sessionId, toolUseId: c.toolUseId, toolName: c.toolName, usePosition: c.usePosition, resultPosition: c.resultPosition, isError: c.isError });
      for (const b of turn.blocks) if (b.type === 'tool_use') toolCalls++;
      position++;
      if (++this.turnsWritten % PROGRESS_EVERY_TURNS === 0) this.onTurns?.(this.turnsWritten);
      this.afterTurn?.(this.turnsWritten);
    }
    for (const c of session.externalCompactions) {
      this.rows.insertExternalCompaction({
        sessionId,
        trigger: c.trigger,
        preTokens: c.preTokens,
        summaryText: c.summaryText,
        summaryTokenCount: countTokens(c.summaryText, this.tokenizer),
        firstPosition: c.firstPosition,
        lastPosition: c.lastPosition,
        boundaryPosition: c.boundaryPosition,
        sourceId: c.sourceId ?? null,
        timestamp: c.timestamp ?? null,
      });
    }
    this.rows.finishSession(sessionId, { title: session.title, startedAt, turnCount: position, tokenCount: tokenTotal, toolCallCount: toolCalls, metadata: session.metadata ?? {} });
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
    const turnId = this.rows.insertTurn({
      sessionId,
      position,
      role: turn.role,
      blocksJson: JSON.stringify(turn.blocks),
      text,
      tokenCount: tokens,
      sourceIds: turn.sourceIds,
      timestamp: turn.timestamp ?? null,
      model: turn.model ?? null,
      agentId: turn.agentId ?? null,
    });
    return { turnId, tokens };
  }
}
