/**
 * The facts of a span and the loss ledger. Pure: no Node, DOM or storage.
 * The ledger (electron/store/summary-facts.ts stores it) and the extractive summarizer
 * (shared/summarize/extractive.ts) read facts from here.
 */
export { FACT_CATEGORIES, emptyRetention, type Fact, type FactCategory, type FactSet, type Ledger, type LedgerEntry, type SummaryLedger, type PathAction, type TodoStatus } from './types.js';
export { extractFacts, detailOf } from './extract.js';
export { canonicalCommand } from './commands.js';
export { salience, mergeFactSets, survives, survivesIn, visibleIndex, ledgerOf, ledgerFacts, sumRetention, SURVIVAL_WORD_SHARE, LEDGER_TOP, summaryLedgerOf, topLedgerOf, lostLine, combineLedgers, type VisibleIndex } from './ledger.js';
