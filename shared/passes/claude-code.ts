/** The `claude-code` pass: the native pass (shared/passes/native.ts) on Claude Code's rule. */
import { claudeCodeRule } from '../strategies/claude-code.js';
import { nativePass } from './native.js';

export const claudeCodePass = nativePass(claudeCodeRule);
