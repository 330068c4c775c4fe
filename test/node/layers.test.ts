/**
 * The layer check (VS Code's "Bad layering" rule). The rules live in eslint.config.mjs
 * (imports, `import()`, `require()`, globals) and in the per-layer tsconfigs (lib and types);
 * this test runs ESLint's own configuration on samples, so a config change that drops a layer
 * rule fails here, and on the real tree, so a layer violation fails `vitest run` as well as
 * `npm run lint`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const LAYER_RULES = new Set(['no-restricted-imports', 'no-restricted-syntax', 'no-restricted-globals']);
const eslint = new ESLint({ cwd: ROOT, cache: false, ruleFilter: ({ ruleId }) => LAYER_RULES.has(ruleId) || ruleId.startsWith('react-hooks/') });

function describeMessages(results: ESLint.LintResult[]): string[] {
  return results.flatMap((r) => r.messages.map((m) => `${path.relative(ROOT, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`));
}

/** Lints `source` as if it were the file `rel` (which need not exist); one entry per problem. */
async function layerViolations(rel: string, source: string): Promise<string[]> {
  return describeMessages(await eslint.lintText(source, { filePath: path.join(ROOT, rel) }));
}

describe('layers', () => {
  it('shared/ imports only shared/ and pure packages; renderer/ never imports electron/ or Node; only electron/shell/ imports electron', async () => {
    const results = await eslint.lintFiles(['shared', 'renderer', 'electron', 'bench']);
    expect(results.length).toBeGreaterThan(100);
    expect(describeMessages(results)).toEqual([]);
  });

  it('catches a planner that imports better-sqlite3 or node:fs, and a renderer that imports electron/', async () => {
    expect(await layerViolations('shared/strategies/x.ts', "import Database from 'better-sqlite3';\nimport fs from 'node:fs';\nexport const q = [Database, fs];")).toHaveLength(2);
    expect(await layerViolations('shared/x.ts', "import { y } from '../electron/store/db.js';\nexport const q = y;")).toHaveLength(1);
    expect(await layerViolations('shared/x.ts', 'export const w = window.innerWidth;')).toHaveLength(1);
    expect(await layerViolations('renderer/x.tsx', "import { openDatabase } from '../electron/store/db.js';\nexport const q = openDatabase;")).toHaveLength(1);
    expect(await layerViolations('renderer/x.tsx', "import { ipcRenderer } from 'electron';\nexport const q = ipcRenderer;")).toEqual([
      expect.stringContaining('Only electron/shell/ may import the electron module'),
    ]);
    expect(await layerViolations('shared/x.ts', "import { z } from 'zod';\nimport { T } from './model/turn.js';\nexport const q = [z, T];")).toEqual([]);
  });

  it('catches bare Node built-ins, React in shared/, dynamic imports, require() and Node globals', async () => {
    expect(await layerViolations('shared/x.ts', "import path from 'path';\nimport { useState } from 'react';\nexport const q = [path, useState];")).toHaveLength(2);
    expect(await layerViolations('shared/x.ts', "export const m = () => import('node:fs');\nexport const s = () => import('better-sqlite3');")).toHaveLength(2);
    expect(await layerViolations('shared/x.ts', 'export const b = Buffer.from(""); setImmediate(() => {});')).toHaveLength(2);
    expect(await layerViolations('renderer/x.ts', "import fs from 'fs/promises';\nexport const q = [fs, process.env];")).toHaveLength(2);
  });

  it('lets only electron/shell/ import the electron module; tests may (with vi.mock)', async () => {
    expect(await layerViolations('electron/engine/x.ts', "import { app } from 'electron';\nexport const q = app;")).toHaveLength(1);
    expect(await layerViolations('electron/store/x.ts', "export const q = () => import('electron/main');")).toHaveLength(1);
    expect(await layerViolations('bench/x.ts', "import { app } from 'electron';\nexport const q = app;")).toHaveLength(1);
    expect(await layerViolations('electron/shell/x.ts', "import { app } from 'electron';\nexport const q = app;")).toEqual([]);
    expect(await layerViolations('test/node/x.test.ts', "import { app } from 'electron';\nexport const q = app;")).toEqual([]);
  });

  it('holds the rules of hooks in renderer/', async () => {
    const conditional = "import { useState } from 'react';\nexport function C({ a }: { a: boolean }) {\n  if (a) {\n    const [x] = useState(0);\n    return x;\n  }\n  return null;\n}";
    expect(await layerViolations('renderer/components/x.tsx', conditional)).toEqual([expect.stringContaining('react-hooks/rules-of-hooks')]);
  });
});

/** Every module specifier a TypeScript file names: static imports and exports (type-only included), `import()` and `require()`. */
function specifiersOf(source: string): Array<{ spec: string; typeOnly: boolean }> {
  const out: Array<{ spec: string; typeOnly: boolean }> = [];
  for (const m of source.matchAll(/^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) out.push({ spec: m[3], typeOnly: Boolean(m[2]) });
  for (const m of source.matchAll(/\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push({ spec: m[1], typeOnly: false });
  return out;
}

/** The repository-relative files under `dir` that import a file under `forbidden` (directly, or through runtime imports). */
function importsInto(dir: string, forbidden: string): string[] {
  const files = fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));
  const edges = (file: string) =>
    specifiersOf(fs.readFileSync(path.join(ROOT, file), 'utf8'))
      .filter((s) => s.spec.startsWith('.'))
      .map((s) => ({ file: path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), s.spec)).replace(/\.js$/, '.ts'), typeOnly: s.typeOnly }));
  const bad: string[] = [];
  for (const start of files) {
    // Direct imports of any kind; beyond them only runtime imports carry code along.
    const seen = new Set<string>([start]);
    let frontier = edges(start);
    let hit: string | null = null;
    while (frontier.length > 0 && !hit) {
      const next: Array<{ file: string; typeOnly: boolean }> = [];
      for (const e of frontier) {
        if (e.file.startsWith(`${forbidden}/`)) {
          hit = e.file;
          break;
        }
        if (seen.has(e.file) || e.typeOnly || !fs.existsSync(path.join(ROOT, e.file))) continue;
        seen.add(e.file);
        next.push(...edges(e.file));
      }
      frontier = next;
    }
    if (hit) bad.push(`${start} -> ${hit}`);
  }
  return bad;
}

describe('the loss ledger and the summarizers share no code', () => {
  it('nothing under shared/summarize/ imports the fact extractor (shared/facts/), nor the other way round', () => {
    expect(importsInto('shared/summarize', 'shared/facts')).toEqual([]);
    expect(importsInto('shared/facts', 'shared/summarize')).toEqual([]);
  });

  it('the canonical turn text both read lives below both, in shared/model/', () => {
    expect(fs.existsSync(path.join(ROOT, 'shared/model/items.ts'))).toBe(true);
    expect(fs.existsSync(path.join(ROOT, 'shared/summarize/items.ts'))).toBe(false);
  });

  it('the lint rule names a summarizer importing the ledger and the ledger importing a summarizer', async () => {
    expect(await layerViolations('shared/summarize/x.ts', "import { extractFacts } from '../facts/extract.js';\nexport const q = extractFacts;")).toEqual([expect.stringContaining('loss ledger')]);
    expect(await layerViolations('shared/facts/x.ts', "import type { X } from '../summarize/extractive.js';\nexport type Q = X;")).toEqual([expect.stringContaining('grades them')]);
    expect(await layerViolations('shared/summarize/x.ts', "import { turnToItem } from '../model/items.js';\nexport const q = turnToItem;")).toEqual([]);
  });
});
