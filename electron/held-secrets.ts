/**
 * The secret values this process (or worker thread) holds, and the redaction that removes
 * them by value besides the key shapes (shared/redact.ts). Module state, deliberately, and in
 * the process layer: a key reaches the process in one place (the environment at start, the
 * secret store, a summarizer built with one: `holdSecret`) and must be kept out of every text
 * the process writes anywhere else, most of which never see the key's owner.
 */
import { MAX_ENDPOINT_TEXT, redactSecrets as redactShapes, redactValues, redactValuesIn, secretForms } from '../shared/redact.js';

/** Longest first, so a key that contains another goes whole. */
const heldSecrets: string[] = [];

/** Remembers a key's literal value (and its encoded forms) so that no text this process writes keeps it. */
export function holdSecret(value: string | null | undefined): void {
  for (const v of secretForms(value)) if (!heldSecrets.includes(v)) heldSecrets.push(v);
  heldSecrets.sort((a, b) => b.length - a.length);
}

/** How many values are held (tests). */
export function heldSecretCount(): number {
  return heldSecrets.length;
}

/** Removes every held secret value from `text` (nothing else: the text stays whole, for summaries and exports). */
export const redactHeldSecrets = (text: string): string => redactValues(text, heldSecrets);

/** `value` with the held secrets removed from every string inside it (shared/redact.ts redactValuesIn). */
export const redactHeldSecretsIn = <T>(value: T): T => redactValuesIn(value, heldSecrets);

/** Held secret values and key-shaped substrings replaced with `[redacted]`, the text capped at `max` characters. */
export const redactSecrets = (text: string, max: number = MAX_ENDPOINT_TEXT): string => redactShapes(text, max, heldSecrets);
