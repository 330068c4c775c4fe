/**
 * The window's stylesheets close every rule. A merge once dropped two closing braces in
 * renderer/styles/panels.css: Chromium's CSS nesting then read every later rule (the prompt
 * editor, the whole Compare tab, the parameter clamp note) as nested inside
 * `.variants-table .row-actions`, so none of them applied and the Compare chart covered its
 * variant picker. The stylesheets use no nesting: a selector at the start of a line opens a
 * top-level rule, so it must stand at depth 0, and each file ends at depth 0.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const STYLES = path.resolve(__dirname, '../../renderer/styles');

/** "file:line" of every top-level rule that opens inside another block, and the file's final depth. */
function unclosed(file: string): { nested: string[]; depth: number } {
  const text = fs.readFileSync(path.join(STYLES, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
  let depth = 0;
  const nested: string[] = [];
  text.split('\n').forEach((line, i) => {
    // Top-level lines are not indented; @media/@keyframes blocks indent their rules.
    if (depth > 0 && /^[.#a-z*:[@]/i.test(line)) nested.push(`${file}:${i + 1} ${line.trim()}`);
    for (const ch of line) depth += ch === '{' ? 1 : ch === '}' ? -1 : 0;
  });
  return { nested, depth };
}

describe('stylesheets', () => {
  const files = fs.readdirSync(STYLES).filter((f) => f.endsWith('.css'));
  it('finds the four stylesheets', () => {
    expect(files.sort()).toEqual(['layout.css', 'panels.css', 'theme.css', 'turns.css']);
  });
  it.each(files)('%s closes every rule before the next one opens', (file) => {
    expect(unclosed(file)).toEqual({ nested: [], depth: 0 });
  });
});
