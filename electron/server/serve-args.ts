/** Command-line arguments of browser mode (`npm run serve -- ...`). */
import { defaultCliDatabasePath } from '../store/db.js';

/** Default port when --port is not given (0 = any free port). */
export const DEFAULT_PORT = 4477;

export interface ServeArgs {
  port: number;
  dbPath: string;
  importDemo: boolean;
}

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: npm run serve -- [--port P] [--db PATH] [--no-demo]\n`);
  process.exit(2);
}

export function parseServeArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ServeArgs {
  const args: ServeArgs = { port: DEFAULT_PORT, dbPath: defaultCliDatabasePath(env), importDemo: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i] ?? usage(`${flag} needs a value`);
    switch (flag) {
      case '--port': {
        const p = Number(value());
        if (!Number.isInteger(p) || p < 0 || p > 65535) usage(`--port must be a whole number from 0 to 65535`);
        args.port = p;
        break;
      }
      case '--db':
        args.dbPath = value();
        break;
      case '--no-demo':
        args.importDemo = false;
        break;
      case '--help':
      case '-h':
        usage('Compaction Studio in the browser: serves the window and its API on 127.0.0.1.');
        break;
      default:
        usage(`unknown argument: ${a}`);
    }
  }
  return args;
}

