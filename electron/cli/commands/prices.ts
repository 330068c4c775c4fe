/**
 * `prices`: the price table (shared/cost/prices.ts) and the context-window table
 * (shared/cost/windows.ts) every replay, projection and pass on this database uses — the
 * built-in rows with their date and source, and the user's overrides (settings `prices` and
 * `contextWindows`, the same ones the window's Settings edit). `--set`, `--window` and
 * `--unset` change the overrides.
 */
import { MODEL_PRICES, priceOf, userModelPriceSchema, type UserPrices } from '../../../shared/cost/prices.js';
import { contextWindowOf, MODEL_CONTEXT_WINDOWS, type UserContextWindows } from '../../../shared/cost/windows.js';
import { readUserContextWindows, readUserPrices, writeSetting } from '../../store/settings.js';
import { formatTable, UsageError, type CliCommand, type CommandContext } from '../framework.js';

/** One row of the report: a model's rates and window, and where each comes from. */
export interface PriceRow {
  model: string;
  priceFrom: 'table' | 'user' | 'none';
  input: number | null;
  output: number | null;
  cacheWrite5m: number | null;
  cacheWrite1h: number | null;
  cacheRead: number | null;
  contextWindow: number;
  windowFrom: 'override' | 'user' | 'table' | 'default';
  asOf: string | null;
  source: string | null;
}

function listOf(ctx: CommandContext, name: string): string[] {
  const v = ctx.options[name];
  return v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];
}

/** `MODEL=INPUT,OUTPUT[,WRITE_5M,WRITE_1H,READ]` (USD per million tokens). */
function parsePrice(arg: string): [string, UserPrices[string]] {
  const eq = arg.lastIndexOf('=');
  const model = arg.slice(0, eq).trim();
  const figures = arg.slice(eq + 1).split(',').map((x) => Number(x.trim()));
  if (eq <= 0 || figures.length < 2 || figures.length > 5 || figures.some((x) => !Number.isFinite(x) || x < 0)) throw new UsageError(`--set expects MODEL=INPUT,OUTPUT[,WRITE_5M,WRITE_1H,READ] in USD per million tokens, got "${arg}"`);
  const [input, output, cacheWrite5m, cacheWrite1h, cacheRead] = figures;
  const listed = priceOf(model).provider;
  return [model, userModelPriceSchema.parse({ input, output, ...(cacheWrite5m !== undefined ? { cacheWrite5m } : {}), ...(cacheWrite1h !== undefined ? { cacheWrite1h } : {}), ...(cacheRead !== undefined ? { cacheRead } : {}), ...(listed ? { provider: listed } : {}) })];
}

function parseWindow(arg: string): [string, number] {
  const eq = arg.lastIndexOf('=');
  const tokens = Number(arg.slice(eq + 1));
  if (eq <= 0 || !Number.isInteger(tokens) || tokens <= 0) throw new UsageError(`--window expects MODEL=TOKENS, got "${arg}"`);
  return [arg.slice(0, eq).trim(), tokens];
}

export function priceRows(userPrices: UserPrices, userWindows: UserContextWindows): PriceRow[] {
  const names = [...new Set([...Object.keys(MODEL_PRICES), ...Object.keys(MODEL_CONTEXT_WINDOWS), ...Object.keys(userPrices), ...Object.keys(userWindows)])];
  return names.map((model): PriceRow => {
    const p = priceOf(model, userPrices);
    const w = contextWindowOf(model, { user: userWindows });
    const priced = p.from === 'table' || p.from === 'user';
    return {
      model,
      priceFrom: p.from === 'table' ? 'table' : p.from === 'user' ? 'user' : 'none',
      input: priced ? p.input : null,
      output: priced ? p.output : null,
      cacheWrite5m: priced ? p.cacheWrite5m : null,
      cacheWrite1h: priced ? p.cacheWrite1h : null,
      cacheRead: priced ? p.cacheRead : null,
      contextWindow: w.tokens,
      windowFrom: w.from,
      asOf: p.asOf ?? w.asOf,
      source: p.source ?? w.source,
    };
  });
}

export const command: CliCommand = {
  name: 'prices',
  summary: 'Show (and override) the prices and context windows every cost figure uses',
  usage: 'prices [--set MODEL=INPUT,OUTPUT[,WRITE_5M,WRITE_1H,READ] ...] [--window MODEL=TOKENS ...] [--unset MODEL ...] [--db PATH] [--json]',
  description:
    'USD per million tokens per model (standard tier) and each model\'s context window, with the date each figure was read and its source. A model with no price is "unpriced": its calls are counted, never priced $0. Overrides are stored in this database (the Settings dialog edits the same ones); cache rates left out follow the provider (Anthropic: the published multipliers; others: the input rate).',
  options: {
    set: { type: 'string', multiple: true, valueName: 'MODEL=IN,OUT[,W5M,W1H,READ]', description: 'set a price (USD per million tokens) for a model' },
    window: { type: 'string', multiple: true, valueName: 'MODEL=TOKENS', description: "set a model's context window" },
    unset: { type: 'string', multiple: true, valueName: 'MODEL', description: "drop the user's price and window of a model" },
  },
  maxPositionals: 0,
  run(ctx) {
    const db = ctx.openDb();
    const sets = listOf(ctx, 'set').map(parsePrice);
    const windows = listOf(ctx, 'window').map(parseWindow);
    const unsets = listOf(ctx, 'unset');
    let prices = readUserPrices(db);
    let userWindows = readUserContextWindows(db);
    if (sets.length + windows.length + unsets.length > 0) {
      prices = { ...prices, ...Object.fromEntries(sets) };
      userWindows = { ...userWindows, ...Object.fromEntries(windows) };
      for (const m of unsets) {
        delete prices[m];
        delete userWindows[m];
      }
      writeSetting(db, 'prices', prices);
      writeSetting(db, 'contextWindows', userWindows);
    }
    const rows = priceRows(prices, userWindows);
    if (ctx.jsonMode) {
      ctx.json({ prices: rows, userPrices: prices, userContextWindows: userWindows });
      return 0;
    }
    const rate = (x: number | null) => (x === null ? 'unpriced' : String(Math.round(x * 10_000) / 10_000));
    for (const line of formatTable(rows, [
      { header: 'MODEL', value: (r) => r.model },
      { header: 'PRICE', value: (r) => r.priceFrom },
      { header: 'INPUT', value: (r) => rate(r.input), align: 'right' },
      { header: 'OUTPUT', value: (r) => rate(r.output), align: 'right' },
      { header: '5M WRITE', value: (r) => rate(r.cacheWrite5m), align: 'right' },
      { header: '1H WRITE', value: (r) => rate(r.cacheWrite1h), align: 'right' },
      { header: 'READ', value: (r) => rate(r.cacheRead), align: 'right' },
      { header: 'WINDOW', value: (r) => `${r.contextWindow}${r.windowFrom === 'table' ? '' : ` (${r.windowFrom})`}`, align: 'right' },
      { header: 'AS OF', value: (r) => r.asOf ?? '-' },
      { header: 'SOURCE', value: (r) => r.source ?? '-' },
    ])) ctx.out(line);
    ctx.out('USD per million tokens. Windows in tokens; a model with no row takes 200000 (default). Override with --set, --window, or Settings.');
    return 0;
  },
};
