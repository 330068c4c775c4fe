/**
 * Command name -> module. Each module exports `command: CliCommand`
 * (electron/cli/framework.ts). Modules load lazily so `import` never pays for the
 * summarizer client and vice versa. To add a command: one line here, one file beside.
 */
import type { CliCommand } from '../framework.js';

export interface CommandModule {
  command: CliCommand;
}

export const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  import: () => import('./import.js'),
  sessions: () => import('./sessions.js'),
  show: () => import('./show.js'),
  search: () => import('./search.js'),
  delete: () => import('./delete.js'),
  plan: () => import('./plan.js'),
  compact: () => import('./compact.js'),
  variants: () => import('./variants.js'),
  export: () => import('./export.js'),
  replay: () => import('./replay.js'),
  merge: () => import('./merge.js'),
  compare: () => import('./compare.js'),
  ledger: () => import('./ledger.js'),
  sweep: () => import('./sweep.js'),
  prices: () => import('./prices.js'),
  evaluate: () => import('./evaluate.js'),
  doctor: () => import('./doctor.js'),
};

/** The command named `name`, or null when there is none. */
export async function loadCommand(name: string): Promise<CliCommand | null> {
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  return load ? (await load()).command : null;
}
