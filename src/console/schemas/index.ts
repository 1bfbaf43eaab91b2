/** Every schema of the Console API, one module per area. */
export * from './common.js';
export * from './dynamic-configs.js';
export * from './events.js';
export * from './experiments.js';
export * from './metric-sources.js';
export * from './metrics.js';
export * from './roles.js';
export * from './segments.js';
export * from './teams.js';
export * from './triggers.js';
