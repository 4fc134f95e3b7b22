// The run settings the tests that train share: a tiny model from scratch on the wasm backend, a small
// tokenizer and a compact environment, so a run of a few dozen steps takes seconds. A test adds its own
// data, steps, evaluation and checkpoint intervals.
export const TINY_RUN = {
  backend: 'wasm',
  tokenizer: { vocabSize: 512 },
  model: { base: 'none', preset: 'tiny', blockSize: 128 },
  env: { maxToolCalls: 12 },
} as const;
