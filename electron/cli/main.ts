/**
 * The `compaction-studio` CLI entry: `npm run cli -- <command> ...` (tsx), or the
 * esbuild bundle dist/electron/cli.cjs behind bin/compaction-studio.cjs. Plain Node,
 * never Electron. Everything testable lives in run.ts.
 */
import { runCli } from './run.js';

// A reader that stops early (`sessions --json | head -c 10`) closes the pipe: end quietly, as
// other command-line tools do, instead of a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

const controller = new AbortController();
process.on('SIGINT', () => {
  // First Ctrl-C asks the running command to stop; a second one exits at once.
  if (controller.signal.aborted) process.exit(130);
  controller.abort();
});

// Deliberately not top-level await: the CJS bundle cannot use it.
runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal: controller.signal }).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`compaction-studio: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exitCode = 1;
  },
);
