/**
 * `npm run serve -- [--port P] [--db PATH] [--no-demo]`: browser mode. The FIRST stdout
 * line is exactly `Compaction Studio at http://127.0.0.1:<port>/#token=<token>`
 * (tests and scripts read it); everything else goes to stderr.
 */
import { startServer } from './http-server.js';
import { parseServeArgs } from './serve-args.js';

async function main(): Promise<void> {
  const args = parseServeArgs(process.argv.slice(2));
  const server = await startServer({ port: args.port, dbPath: args.dbPath, importDemo: args.importDemo });
  process.stdout.write(`Compaction Studio at ${server.url}\n`);
  process.stderr.write(`database: ${args.dbPath}\nPress Ctrl+C to stop.\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'EADDRINUSE') process.stderr.write(`port already in use; pick another with --port P (or --port 0 for any free port)\n`);
  else process.stderr.write(`serve failed: ${e instanceof Error ? e.message : String(err)}\n`);
  process.exit(1);
});
