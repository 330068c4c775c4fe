/**
 * Arguments shared by the engine commands (plan, compact, variants, export): the
 * strategy, `--set key=value` parameters, the summarizer choice, and the stderr
 * progress bar for passes.
 */
import { STRATEGIES, type StrategyName } from '../../../shared/strategies/types.js';
import { clampParams, ParamError, type ParamNote } from '../../../shared/strategies/params.js';
import { STRATEGY_DEFINITIONS } from '../../../shared/strategies/index.js';
import type { SummarizerConfig } from '../../../shared/contract.js';
import { EngineError, type RunProgress } from '../../engine/engine.js';
import type { SummarizerSetup } from '../../summarize/index.js';
import { isPromptPreset, presetOverrides, PROMPT_PRESETS, type PromptPreset } from '../../../shared/summarize/prompts.js';
import { CliError, UsageError, intOption, stringOption, type CommandContext, type OptionSpec, type Output } from '../framework.js';

export const STRATEGY_OPTIONS: Record<string, OptionSpec> = {
  strategy: { type: 'string', short: 's', valueName: 'S', description: `compaction strategy: ${STRATEGIES.join(', ')}` },
  set: { type: 'string', multiple: true, valueName: 'KEY=VALUE', description: "a strategy parameter, e.g. --set freshTailCount=8 (see the strategy's parameters)" },
};

export const SUMMARIZER_OPTIONS: Record<string, OptionSpec> = {
  summarizer: { type: 'string', valueName: 'KIND', description: 'extractive (default, offline) or openai (OpenAI-compatible API; key from $OPENAI_API_KEY)' },
  'base-url': { type: 'string', valueName: 'URL', description: 'OpenAI-compatible base URL (default https://api.openai.com/v1)' },
  model: { type: 'string', valueName: 'M', description: 'model for --summarizer openai (default gpt-4o-mini)' },
  'prompt-template': { type: 'string', valueName: 'T', description: `prompt templates for --summarizer openai: ${PROMPT_PRESETS.join(' (default) or ')} (the source tool's nine sections after an analysis step)` },
};

export function strategyArg(ctx: CommandContext): StrategyName {
  const s = stringOption(ctx, 'strategy');
  if (s === undefined) throw new UsageError(`--strategy is required (one of ${STRATEGIES.join(', ')})`);
  if (!(STRATEGIES as readonly string[]).includes(s)) throw new UsageError(`unknown strategy "${s}" (one of ${STRATEGIES.join(', ')})`);
  return s as StrategyName;
}

/** `--set a=1 --set b=2` as raw parameters (the engine resolves and range-checks them). */
export function paramsArg(ctx: CommandContext): Record<string, string> {
  const raw = ctx.options.set;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
  const out: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set expects KEY=VALUE, got "${item}"`);
    out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return out;
}

/**
 * `--set` values fitted to the strategy's specs (shared `clampParams`): a value out of range
 * (or a fraction for a whole-number parameter) is used at the nearest allowed value, and a
 * note says so on stderr; the commands put the same notes in their --json output (`paramNotes`).
 */
export function clampedParamsArg(ctx: CommandContext, strategy: StrategyName): { params: Record<string, unknown>; notes: ParamNote[] } {
  const out = clampParams(STRATEGY_DEFINITIONS[strategy].specs, paramsArg(ctx));
  for (const n of out.notes) ctx.err(`compaction-studio: note: ${n.note}`);
  return out;
}

/** The summarizer choice of the command line (the key comes from the environment, never a flag). */
export function summarizerArg(ctx: CommandContext): SummarizerSetup {
  const kind = stringOption(ctx, 'summarizer') ?? 'extractive';
  const baseURL = stringOption(ctx, 'base-url');
  const model = stringOption(ctx, 'model');
  const preset = stringOption(ctx, 'prompt-template');
  if (kind !== 'extractive' && kind !== 'openai') throw new UsageError(`--summarizer must be extractive or openai, got "${kind}"`);
  if (kind === 'extractive' && (baseURL !== undefined || model !== undefined)) throw new UsageError('--base-url and --model apply to --summarizer openai');
  if (preset !== undefined && !isPromptPreset(preset)) throw new UsageError(`--prompt-template must be ${PROMPT_PRESETS.join(' or ')}, got "${preset}"`);
  if (kind === 'extractive' && preset !== undefined) throw new UsageError('--prompt-template applies to --summarizer openai');
  if (baseURL !== undefined && !/^https?:\/\/\S+$/.test(baseURL)) throw new UsageError(`--base-url must be an http(s) URL, got "${baseURL}"`);
  const prompts = preset ? presetOverrides(preset as PromptPreset) : {};
  const config: SummarizerConfig = { kind, ...(baseURL ? { baseURL } : {}), ...(model ? { model } : {}), ...(Object.keys(prompts).length > 0 ? { prompts } : {}) };
  return { ...config, apiKey: ctx.env.OPENAI_API_KEY };
}

export function concurrencyArg(ctx: CommandContext): number {
  const n = intOption(ctx, 'concurrency', 4);
  if (n < 1 || n > 32) throw new UsageError(`--concurrency must be between 1 and 32, got ${n}`);
  return n;
}

/** Parameter and lookup errors of the engine as CLI errors (exit 1 with the engine's message). */
export function asCliError(e: unknown): unknown {
  if (e instanceof ParamError) return new CliError(e.message, 'bad_params', 1);
  if (e instanceof EngineError) return new CliError(e.message, e.code, 1);
  return e;
}

/**
 * A progress bar on stderr for passes longer than a second. Redrawn in place on a
 * terminal; on a non-terminal stderr, a line per quarter. Silent when `--json` output
 * goes to a pipe: the caller is a program, not a person.
 */
export class ProgressBar {
  private readonly started = Date.now();
  private shown = false;
  private lastQuarter = -1;
  private readonly enabled: boolean;
  private readonly delayMs: number;

  constructor(
    private readonly stderr: Output,
    opts: { jsonMode: boolean; stdoutIsTTY: boolean | undefined; delayMs?: number },
  ) {
    this.enabled = !(opts.jsonMode && !opts.stdoutIsTTY);
    this.delayMs = opts.delayMs ?? 1000;
  }

  update(p: Pick<RunProgress, 'done' | 'total' | 'tokens'>): void {
    if (!this.enabled || p.total <= 0 || Date.now() - this.started < this.delayMs) return;
    const pct = Math.min(100, Math.floor((p.done / p.total) * 100));
    if (this.stderr.isTTY) {
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      this.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(pct).padStart(3)}%  ${p.done}/${p.total} summaries, ${p.tokens} tokens`);
      this.shown = true;
      return;
    }
    const quarter = Math.floor(pct / 25);
    if (quarter !== this.lastQuarter) {
      this.lastQuarter = quarter;
      this.stderr.write(`progress: ${p.done}/${p.total} summaries (${pct}%), ${p.tokens} tokens\n`);
      this.shown = true;
    }
  }

  finish(): void {
    if (this.shown && this.stderr.isTTY) this.stderr.write('\n');
  }
}
