/**
 * The mixed-model fixture (test/fixtures/claude-code-mixed/, see its README) is a real
 * Claude Code session with one change: the calls of its middle three fifths say they ran on
 * claude-haiku-4-5 (as a real session that switched Opus → Haiku → Opus did: the cheaper
 * model is the majority, so pricing every call at the majority model underprices it). `mixModels`
 * is the derivation: every other byte of each line is the source's, so the test can check the
 * file is exactly this function of the real fixture.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES } from './fixture-sessions.js';

export const MIXED_SOURCE = path.join(FIXTURES, 'claude-code', 'claude-code-log__-Users-dain-workspace-JSSoundRecorder__7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl');
export const MIXED_FIXTURE = path.join(FIXTURES, 'claude-code-mixed', 'claude-code-log__JSSoundRecorder__mixed-haiku.jsonl');
export const SOURCE_MODEL = 'claude-sonnet-4-5-20250929';
export const SWITCHED_MODEL = 'claude-haiku-4-5-20251001';

/** The source's text with the model of every record of the middle three fifths of its message ids (in order of first appearance) rewritten. */
export function mixModels(text: string): string {
  const lines = text.split('\n');
  const idOf = (line: string): string | undefined => {
    if (!line.trim()) return undefined;
    const rec = JSON.parse(line) as { type?: string; message?: { id?: string; model?: string } };
    return rec.type === 'assistant' && rec.message?.model === SOURCE_MODEL ? rec.message.id : undefined;
  };
  const ids: string[] = [];
  for (const line of lines) {
    const id = idOf(line);
    if (id && !ids.includes(id)) ids.push(id);
  }
  const fifth = Math.floor(ids.length / 5);
  const switched = new Set(ids.slice(fifth, 4 * fifth));
  return lines
    .map((line) => {
      const id = idOf(line);
      return id && switched.has(id) ? line.replace(`"model":"${SOURCE_MODEL}"`, `"model":"${SWITCHED_MODEL}"`) : line;
    })
    .join('\n');
}

export function writeMixedFixture(): void {
  fs.writeFileSync(MIXED_FIXTURE, mixModels(fs.readFileSync(MIXED_SOURCE, 'utf8')));
}
