/** The `codex` pass: the native pass (shared/passes/native.ts) on Codex's rule. */
import { codexRule } from '../strategies/codex.js';
import { nativePass } from './native.js';

export const codexPass = nativePass(codexRule);
