/**
 * How main tells the sandboxed preload which operations exist. The preload cannot
 * import shared/contract.ts without bundling zod (~450 KB into every window), so main,
 * which has OPERATIONS, passes the names as a command-line switch
 * (webPreferences.additionalArguments) and the preload builds one function per name.
 * No Node or zod imports here: the preload bundles this file.
 */
export const OPERATIONS_SWITCH = '--studio-operations=';

/** Operation names must look like identifiers: nothing else can become a channel. */
const OPERATION_NAME = /^[A-Za-z][A-Za-z0-9]*$/;

export function operationsSwitch(operations: readonly string[]): string {
  return OPERATIONS_SWITCH + operations.join(',');
}

/** Reads the operation names back from argv; empty when the switch is missing. */
export function operationsFromArgv(argv: readonly string[]): string[] {
  const arg = argv.find((a) => a.startsWith(OPERATIONS_SWITCH));
  if (!arg) return [];
  return arg
    .slice(OPERATIONS_SWITCH.length)
    .split(',')
    .filter((name) => OPERATION_NAME.test(name));
}
