/**
 * The one entry point both transports (Electron IPC, browser-mode HTTP) call:
 * validate the raw input of an operation against its zod schema from the shared
 * contract, run it, and turn the outcome into an Envelope. Errors cross the boundary
 * as data with a code from the contract's ERROR_CODES (shared/contract-names.ts), so the
 * renderer can show a readable message.
 */
import { redactHeldSecrets, redactHeldSecretsIn } from '../held-secrets.js';
import type { z } from 'zod';
import { jsonErrorReason } from '../importers/source.js';
import { readOnlyReason, type DB } from '../store/db.js';
import { databaseErrorOf, type DatabaseErrorCode } from '../store/db-errors.js';
import { InputSchemas, StudioError, type Envelope, type OperationInput, type OperationName, type StudioApi } from '../../shared/contract.js';

// Messages are capped: a hostile or broken request must not make us echo megabytes back.
const MAX_MESSAGE = 2000;

export function isOperationName(op: string): op is OperationName {
  return Object.prototype.hasOwnProperty.call(InputSchemas, op);
}

const strictSchemas = new Map<OperationName, z.ZodObject>();

/**
 * Validates `raw` for `op`. Unknown keys are rejected rather than silently stripped: a
 * misspelt field is a bug in the caller, and an extra multi-megabyte field should not be
 * accepted and carried along. Throws StudioError('invalid_input') naming the operation
 * and each bad field.
 */
export function validateInput<K extends OperationName>(op: K, raw: unknown): OperationInput<K> {
  let schema = strictSchemas.get(op);
  if (!schema) {
    schema = (InputSchemas[op] as unknown as z.ZodObject).strict();
    strictSchemas.set(op, schema);
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data as OperationInput<K>;
  const problems = result.error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(input)';
    return `${where}: ${issue.message.replace(/^Invalid input: /, '')}`;
  });
  throw new StudioError('invalid_input', truncate(`invalid input for ${op}: ${problems.join('; ')}`));
}

/**
 * A request body as the operation's raw input: empty is `{}`, anything else must be JSON.
 * Throws StudioError('bad_json') quoting at most a short escaped excerpt (jsonErrorReason).
 */
export function parseJsonBody(body: string): unknown {
  if (body.trim() === '') return {};
  try {
    return JSON.parse(body) as unknown;
  } catch (err) {
    throw new StudioError('bad_json', `the request body is not JSON: ${err instanceof Error ? jsonErrorReason(err, body) : String(err)}`);
  }
}

/**
 * Maps any thrown value to the Envelope error the window sees. `db`, the service's connection,
 * names the file in SQLite's failures of it (full, damaged, locked, read-only: db-errors.ts).
 */
export function errorEnvelope(op: string, err: unknown, db?: DB): Envelope<never> {
  const envelope = envelopeOf(op, err, db);
  // An error may quote an endpoint that echoed the key: no held secret value crosses the boundary.
  return envelope.ok ? envelope : { ok: false, error: { code: envelope.error.code, message: redactHeldSecrets(envelope.error.message) } };
}

function envelopeOf(op: string, err: unknown, db?: DB): Envelope<never> {
  if (err instanceof StudioError) return { ok: false, error: { code: err.code, message: truncate(err.message) } };
  const dbError = db ? databaseErrorOf(err, db.name, readOnlyReason(db)) : null;
  if (dbError) return { ok: false, error: { code: dbError.code, message: truncate(`${op} failed: ${dbError.message}`) } };
  if (err instanceof Error) {
    // Matched by name, not instanceof: the importer's ImportError and the planners'
    // ParamError are defined in modules this file should not depend on.
    switch (err.name) {
      case 'DatabaseError':
        return { ok: false, error: { code: (err as Error & { code: DatabaseErrorCode }).code, message: truncate(`${op} failed: ${err.message}`) } };
      case 'ImportError':
        return { ok: false, error: { code: 'import_error', message: truncate(err.message) } };
      case 'ParamError':
        return { ok: false, error: { code: 'invalid_input', message: truncate(`invalid input for ${op}: ${err.message}`) } };
      case 'EngineError': {
        // The engine's own codes: 'not_found' passes through, 'bad_params' is bad input.
        const code = (err as Error & { code?: unknown }).code === 'not_found' ? 'not_found' : 'invalid_input';
        return { ok: false, error: { code, message: truncate(code === 'invalid_input' ? `invalid input for ${op}: ${err.message}` : err.message) } };
      }
      default:
        return { ok: false, error: { code: 'internal', message: truncate(`${op} failed: ${err.message}`) } };
    }
  }
  return { ok: false, error: { code: 'internal', message: truncate(`${op} failed: ${String(err)}`) } };
}

/**
 * Validates and runs one operation. Never throws: every failure is an Envelope.
 * `raw` is whatever arrived over the wire (parsed JSON or a structured-clone value).
 */
export async function dispatchOperation(api: StudioApi, op: string, raw: unknown, db?: DB): Promise<Envelope<unknown>> {
  if (!isOperationName(op)) {
    return { ok: false, error: { code: 'unknown_operation', message: truncate(`unknown operation: ${op}`) } };
  }
  try {
    const input = validateInput(op, raw);
    const run = api[op] as (input: unknown) => Promise<unknown>;
    const value = await run(input);
    return { ok: true, value: redactHeldSecretsIn(value) };
  } catch (err) {
    return errorEnvelope(op, err, db);
  }
}

function truncate(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}
