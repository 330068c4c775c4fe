/**
 * ESLint (flat config). Besides the usual JS/TS checks it holds the layers, the way VS Code's
 * `local/code-import-patterns` does: one import restriction per folder (docs/ARCHITECTURE.md,
 * "Layers"). The per-layer tsconfigs hold the same line for globals and types (no Node types
 * in shared/ or renderer/, no DOM in shared/ or electron/); this file holds it for imports,
 * including `import()` and `require()`, which `no-restricted-imports` alone does not see.
 */
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each: a regex over the import specifier and the message a violation shows. */
const NODE = {
  regex: `^(node:.*|${builtinModules.filter((m) => !m.startsWith('_')).map(escape).join('|')})$`,
  message: 'Node built-in: this layer runs without Node (shared/ anywhere, renderer/ in the window).',
};
const ELECTRON = {
  regex: '^electron(/.*)?$',
  message: "Only electron/shell/ may import the electron module (tests, the CLI and the server load without the Electron binary).",
};
const SQLITE = { regex: '^better-sqlite3(/.*)?$', message: 'better-sqlite3 belongs to electron/store/.' };
const DOM_LIBS = {
  regex: '^(react|react-dom|scheduler|@xyflow/.*|@tanstack/.*)(/.*)?$',
  message: 'React and DOM-only libraries belong to renderer/; shared/ is pure.',
};
const NETWORK_LIBS = { regex: '^openai(/.*)?$', message: 'The OpenAI client does I/O; it belongs to electron/summarize/.' };
const UP_FROM_SHARED = {
  regex: '^(\\.\\./)+(electron|renderer|test|bench|scripts)(/.*)?$',
  message: 'shared/ may import only shared/ (and pure packages such as zod).',
};
const UP_FROM_RENDERER = {
  regex: '^(\\.\\./)+(electron|test|bench|scripts)(/.*)?$',
  message: 'renderer/ may import only renderer/ and shared/; ask the main process through shared/contract.ts.',
};
/**
 * The loss ledger grades summaries, so it shares no code with what it grades: the
 * summarizers (shared/summarize/) and the ledger's fact extractor (shared/facts/) meet only
 * in shared/model/ (a turn's canonical text). test/node/layers.test.ts also walks the
 * resolved imports, type-only ones included.
 */
const SUMMARIZE_TO_FACTS = {
  regex: '^(\\.\\./)+(shared/)?facts(/.*)?$',
  message: "shared/summarize/ must not import the loss ledger's fact extractor (shared/facts/): the ledger grades summaries.",
};
const FACTS_TO_SUMMARIZE = {
  regex: '^(\\.\\./)+(shared/)?summarize(/.*)?$',
  message: 'shared/facts/ (the loss ledger) must not import a summarizer (shared/summarize/): it grades them.',
};

/** Globals a layer's runtime lacks (the tsconfigs reject them too; this names the layer in the message). */
const NODE_GLOBAL_NAMES = ['process', 'Buffer', 'global', 'require', 'module', '__dirname', '__filename', 'setImmediate', 'clearImmediate'];
const DOM_GLOBAL_NAMES = ['window', 'document', 'navigator', 'location', 'localStorage', 'sessionStorage', 'self', 'HTMLElement', 'requestAnimationFrame'];
const restrictedGlobals = (names, message) => ['error', ...names.map((name) => ({ name, message }))];

/**
 * `no-restricted-imports` for static imports and exports, plus `no-restricted-syntax` for
 * `import('x')` and `require('x')` with the same regexes (esquery regexes cannot contain `/`,
 * hence \u002F).
 */
function layerRules(...restrictions) {
  const selectorRegex = (r) => r.regex.replaceAll('/', '\\u002F');
  return {
    'no-restricted-imports': ['error', { patterns: restrictions.map(({ regex, message }) => ({ regex, message })) }],
    'no-restricted-syntax': [
      'error',
      ...restrictions.flatMap((r) => [
        { selector: `ImportExpression > Literal.source[value=/${selectorRegex(r)}/]`, message: r.message },
        { selector: `CallExpression[callee.name="require"] > Literal.arguments[value=/${selectorRegex(r)}/]`, message: r.message },
      ]),
    ],
  };
}

/** Globals for the few plain-JS files (scripts/*.mjs, bin/*.cjs); TS files get theirs from the tsconfigs. */
const NODE_GLOBALS = Object.fromEntries(
  ['process', 'console', 'Buffer', 'URL', 'performance', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'fetch'].map((g) => [g, 'readonly']),
);
const COMMONJS_GLOBALS = Object.fromEntries(['require', 'module', 'exports', '__dirname', '__filename'].map((g) => [g, 'readonly']));

const SHARED = [NODE, ELECTRON, SQLITE, DOM_LIBS, NETWORK_LIBS, UP_FROM_SHARED];
const SHARED_GLOBALS = restrictedGlobals([...NODE_GLOBAL_NAMES, ...DOM_GLOBAL_NAMES], 'shared/ is pure: no Node and no DOM globals.');

export default defineConfig(
  { ignores: ['node_modules/', 'dist/', 'out/', 'release/', 'native/', '.tsbuild/', 'test-results/', 'playwright-report/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore marks a deliberately unused binding: `const { apiKey: _key, ...rest }`.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: NODE_GLOBALS },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...NODE_GLOBALS, ...COMMONJS_GLOBALS } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },

  // Layers (docs/ARCHITECTURE.md). A later block replaces an earlier one's options for the
  // same rule, so each file matches exactly one of these.
  {
    files: ['shared/**/*.ts'],
    ignores: ['shared/summarize/**', 'shared/facts/**'],
    rules: { ...layerRules(...SHARED), 'no-restricted-globals': SHARED_GLOBALS },
  },
  { files: ['shared/summarize/**/*.ts'], rules: { ...layerRules(...SHARED, SUMMARIZE_TO_FACTS), 'no-restricted-globals': SHARED_GLOBALS } },
  { files: ['shared/facts/**/*.ts'], rules: { ...layerRules(...SHARED, FACTS_TO_SUMMARIZE), 'no-restricted-globals': SHARED_GLOBALS } },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      ...layerRules(NODE, ELECTRON, SQLITE, UP_FROM_RENDERER),
      'no-restricted-globals': restrictedGlobals(NODE_GLOBAL_NAMES, 'renderer/ runs in the window: no Node globals.'),
    },
  },
  { files: ['electron/**/*.ts'], ignores: ['electron/shell/**'], rules: layerRules(ELECTRON) },
  { files: ['bench/**/*.ts'], rules: layerRules(ELECTRON) },
);
