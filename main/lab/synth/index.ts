// Question synthesis (PIPELINE 3) and exact verification: the public face of main/lab/synth.
export { buildQueryIndex, evaluateQuery, type QueryIndex, type QueryResult, type EvaluateOptions } from './query';
export { matchesFilter, yearOf } from './query-filters';
export { OBFUSCATION_KINDS, isObfuscationKind, mentionsAny, type ObfuscationKind, type Constraint } from './obfuscate';
export { synthesize, type SynthResult, type SynthStats } from './build';
export { resolveOptions, DEFAULT_KIND_PROBS, type SynthOptions, type SynthInput } from './options';
export { canonicalOrbits, OrbitBalancer } from './orbits';
export { readDataset, writeDataset, validateQa, checkDataset, measureVerifyRate, type CheckReport, type CheckRow, type Dataset } from './dataset';
export { phraseQuestion, chatComplete, type LlmConfig, type PhraseResult, type PhraseOutcome } from './phrase';
export { fixtureGraph } from './fixture';
