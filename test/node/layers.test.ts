/**
 * The layer check (VS Code's "Bad layering" rule as a test): shared/ is pure (no Node,
 * Electron, DOM or better-sqlite3), renderer/ never imports electron/ or Node, and
 * nothing outside electron/ imports the electron module.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const IMPORT_RE = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
const NODE_BUILTINS = new Set(['fs', 'path', 'os', 'crypto', 'child_process', 'worker_threads', 'http', 'https', 'net', 'url', 'stream', 'util', 'events', 'zlib', 'readline', 'buffer', 'process', 'assert', 'tty', 'v8', 'perf_hooks', 'timers', 'dns']);
const DOM_GLOBALS = /\b(window|document|localStorage|navigator|HTMLElement)\s*[.\[]/;

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (/\.(ts|tsx|mts|cts)$/.test(e.name)) out.push(p);
  }
  return out;
}

export function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT_RE)) out.push(m[1] ?? m[2] ?? m[3] ?? m[4]);
  return out;
}

export function layerViolations(file: string, source: string): string[] {
  const rel = path.relative(ROOT, file).split(path.sep).join('/');
  const layer = rel.split('/')[0];
  const problems: string[] = [];
  for (const spec of importsOf(source)) {
    const bare = spec.replace(/^node:/, '').split('/')[0];
    const resolved = spec.startsWith('.') ? path.relative(ROOT, path.resolve(path.dirname(file), spec)).split(path.sep).join('/') : null;
    const target = resolved ? resolved.split('/')[0] : null;
    if (layer === 'shared') {
      if (spec.startsWith('node:') || NODE_BUILTINS.has(bare)) problems.push(`${rel}: shared/ must not import Node ('${spec}')`);
      if (bare === 'electron' || bare === 'better-sqlite3') problems.push(`${rel}: shared/ must not import '${spec}'`);
      if (target && target !== 'shared') problems.push(`${rel}: shared/ may import only shared/ ('${spec}')`);
      if (bare === 'react' || bare === 'react-dom') problems.push(`${rel}: shared/ must not import '${spec}'`);
    }
    if (layer === 'renderer') {
      if (target === 'electron') problems.push(`${rel}: renderer/ must not import electron/ ('${spec}')`);
      if (bare === 'electron' || bare === 'better-sqlite3' || spec.startsWith('node:') || NODE_BUILTINS.has(bare)) problems.push(`${rel}: renderer/ must not import '${spec}'`);
    }
    if (layer !== 'electron' && layer !== 'test' && bare === 'electron') problems.push(`${rel}: only electron/ may import 'electron'`);
  }
  if (layer === 'shared') {
    // Comments and string literals are not code: './window.js' or "context window." are not DOM uses.
    const code = source
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '')
      .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, "''");
    if (DOM_GLOBALS.test(code)) problems.push(`${rel}: shared/ must not use DOM globals`);
  }
  return problems;
}

describe('layers', () => {
  it('shared/ imports only shared/ and pure packages; renderer/ never imports electron/ or Node', () => {
    const files = [...walk(path.join(ROOT, 'shared')), ...walk(path.join(ROOT, 'renderer')), ...walk(path.join(ROOT, 'bench')), ...walk(path.join(ROOT, 'scripts'))];
    expect(files.length).toBeGreaterThan(0);
    const problems = files.flatMap((f) => layerViolations(f, fs.readFileSync(f, 'utf8')));
    expect(problems).toEqual([]);
  });

  it('catches a planner that imports better-sqlite3 or node:fs, and a renderer that imports electron/', () => {
    expect(layerViolations(path.join(ROOT, 'shared/strategies/x.ts'), "import Database from 'better-sqlite3';\nimport fs from 'node:fs';")).toHaveLength(2);
    expect(layerViolations(path.join(ROOT, 'shared/x.ts'), "import { y } from '../electron/store/db.js';")).toHaveLength(1);
    expect(layerViolations(path.join(ROOT, 'shared/x.ts'), 'const w = window.innerWidth;')).toHaveLength(1);
    expect(layerViolations(path.join(ROOT, 'renderer/x.tsx'), "import { openDatabase } from '../electron/store/db.js';")).toHaveLength(1);
    expect(layerViolations(path.join(ROOT, 'renderer/x.tsx'), "import { ipcRenderer } from 'electron';")).toHaveLength(2);
    expect(layerViolations(path.join(ROOT, 'shared/x.ts'), "import { z } from 'zod';\nimport { T } from './model/turn.js';")).toEqual([]);
  });
});
