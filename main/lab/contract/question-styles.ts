// The styles of question the lab synthesises, as synth params: the wizard offers them, the quick preset names
// one, and pretraining's expert episodes use lookups. No Node imports: the renderer bundles this file.

/**
 * Lookups (every question names an entity; no obfuscation) ask for the shortest tool sequences, search, visit,
 * answer: the quick preset's curriculum for a small policy trained from scratch. The obfuscated style is
 * WebSailor's levels 1-3 (the synthesiser's defaults).
 */
export const QUESTION_STYLES = {
  lookup: {
    label: 'lookups',
    detail: 'Each question names an entity and asks what it links to, one or two hops away, without obfuscation: the quick preset, the shortest tool sequences (search, visit, answer) for a small model.',
    // kinds []: no obfuscation kind at all (typed never[] so it fits any list of kinds).
    params: { kinds: [] as never[], anchorProb: 1, maxConstraints: 0, perShape: 100_000 },
  },
  obfuscated: {
    label: 'obfuscated',
    detail: 'WebSailor-style uncertainty: vague dates, ranges, partial names, descriptions and distractors (levels 1-3); far beyond the tiny model.',
    params: {},
  },
} as const;
export type QuestionStyle = keyof typeof QUESTION_STYLES;
