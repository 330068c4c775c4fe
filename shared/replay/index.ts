/** The replay: what the model receives for a variant, and the message validator. */
export { buildReplay, finishReplay, messageTokens } from './build.js';
export type { ReplayInput, ReplayResult } from './build.js';
export { stablePrefixEnd, watermarkCandidates, rollingSummaryText, watermarkSummaryText, coverSummaryText, ROLLING_ACKNOWLEDGEMENT, WATERMARK_GLUE } from './candidates.js';
export type { ViewInput } from './candidates.js';
export { normalizeReplay, LEADING_GLUE_TEXT, TOOL_ID_PATTERN } from './normalize.js';
export type { ReplayCandidate, NormalizedMessage, ReplayOrigin } from './normalize.js';
export { validateMessages } from './validate.js';
export type { MessageProblem, MessageRules, ProblemCode } from './validate.js';
