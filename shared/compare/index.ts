export * from './types.js';
export * from './fates.js';
export * from './compare.js';
export * from './facts.js';
