export * from './types.js';
export * from './grid.js';
export * from './table.js';
export * from './chart.js';
