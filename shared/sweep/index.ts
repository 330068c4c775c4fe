export * from './types.js';
export * from './grid.js';
export * from './table.js';
