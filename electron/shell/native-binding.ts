/**
 * better-sqlite3 under two runtimes (see TOOLCHAIN.md "One install, two runtimes"):
 * node_modules/better-sqlite3 stays the Node build (ABI 115) for the tests, the CLI and
 * browser mode; inside Electron (ABI 150) we load the copy that
 * scripts/build-native-electron.mjs built into native/electron/ (packaged: shipped as an
 * extra resource in <resources>/native/). Pass the result as `nativeBinding` to openDatabase.
 */
import fs from 'node:fs';
import path from 'node:path';

export const NATIVE_BINDING_FILE = 'better_sqlite3.node';

export interface NativeBindingContext {
  /** process.versions (electron is set inside Electron). */
  versions: NodeJS.ProcessVersions & { electron?: string };
  /** The project root in development, app.getAppPath() when packaged. */
  appRoot: string;
  /** process.resourcesPath inside a packaged app. */
  resourcesPath?: string;
  exists?: (file: string) => boolean;
}

/** Where the Electron build may live, in the order tried. */
export function electronBindingCandidates(ctx: Pick<NativeBindingContext, 'appRoot' | 'resourcesPath'>): string[] {
  const candidates: string[] = [];
  // electron-builder copies native/electron/*.node to <resources>/native/ (extraResources).
  if (ctx.resourcesPath) candidates.push(path.join(ctx.resourcesPath, 'native', NATIVE_BINDING_FILE));
  candidates.push(path.join(ctx.appRoot, 'native', 'electron', NATIVE_BINDING_FILE));
  return candidates;
}

/**
 * The binding to pass to better-sqlite3: undefined under plain Node (use the package's
 * own build), the Electron build under Electron. Throws with the fix when it is missing,
 * rather than letting better-sqlite3 fail with an ABI mismatch.
 */
export function resolveNativeBinding(ctx: NativeBindingContext): string | undefined {
  if (!ctx.versions.electron) return undefined;
  const exists = ctx.exists ?? ((f: string) => fs.existsSync(f));
  const candidates = electronBindingCandidates(ctx);
  const found = candidates.find(exists);
  if (found) return found;
  throw new Error(
    `The Electron build of better-sqlite3 is missing (looked in ${candidates.join(', ')}). ` +
      'Run `npm start` (it builds it) or `node scripts/build-native-electron.mjs`; it needs the internet once. ' +
      'Without it, `npm run serve` runs the same app in the browser.',
  );
}
