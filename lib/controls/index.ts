/**
 * The controls every money path passes: the gate (caps, four eyes, the largest instruction), who a person is to
 * four eyes, and the refusals. Every entry point describes its instruction to `judge`; nothing else decides.
 */
export * from './errors.js';
export * from './gate.js';
export * from './identity.js';
export * from './principal.js';
