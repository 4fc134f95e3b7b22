// What one synthesis run is asked for: the options, their defaults, and the checks that refuse bad ones.
import { LabError } from '../base/errors';
import { OBFUSCATION_KINDS, type ObfuscationKind } from './obfuscate';

export const DEFAULT_KIND_PROBS: Record<ObfuscationKind, number> = {
  vague_time: 0.6,
  numeric_range: 0.5,
  partial_name: 0.3,
  description: 0.4,
  multi_constraint: 0.25,
  implicit_order: 0.3,
  distractor: 0.3,
};

export interface SynthOptions {
  /** QAs to publish. */
  count: number;
  /** Seed of every random choice. */
  rng: number;
  /** Recorded in each QA's `graph` field. */
  graphName: string;
  /** Obfuscation kinds allowed. */
  kinds: ObfuscationKind[];
  /** Chance of each kind being injected into a QA (the least used kind so far is always tried first). */
  probs: Record<ObfuscationKind, number>;
  /** Obfuscation fragments injected up front (tightening may add up to `maxTighten` more). */
  maxConstraints: number;
  /** Tightening steps per QA before it is rejected as ambiguous. */
  maxTighten: number;
  minEdges: number;
  maxEdges: number;
  /** Chance of naming one non-answer entity up front (otherwise only tightening names entities). */
  anchorProb: number;
  /**
   * Subgraphs kept per WL hash (default 1: every QA a new shape). More gives many QAs of one shape on
   * other entities: the volume a lookup curriculum of 1-edge questions needs, since a graph has few 1-edge shapes.
   */
  perShape: number;
  /** Edge ids no QA's subgraph may use: the facts of another split (a held-out set disjoint from its training set). */
  excludeEdges?: ReadonlySet<string>;
  onProgress?: (p: { published: number; target: number; attempts: number }) => void;
}

/** What a synthesis run does with an option left out: stated here only (the CLI's help shows these). */
export const SYNTH_DEFAULTS = {
  rng: 1,
  maxConstraints: 3,
  maxTighten: 6,
  minEdges: 2,
  maxEdges: 6,
  anchorProb: 0.35,
  perShape: 1,
  /** The asearcher generator's inject/fuzz steps per seed. */
  steps: 3,
} as const;

export type SynthInput = Partial<Omit<SynthOptions, 'probs'>> & { count: number; probs?: Partial<Record<ObfuscationKind, number>> };

export function resolveOptions(input: SynthInput): SynthOptions {
  const o: SynthOptions = {
    count: input.count,
    rng: input.rng ?? SYNTH_DEFAULTS.rng,
    graphName: input.graphName ?? 'graph',
    kinds: input.kinds ?? [...OBFUSCATION_KINDS],
    probs: { ...DEFAULT_KIND_PROBS, ...(input.probs ?? {}) },
    maxConstraints: input.maxConstraints ?? SYNTH_DEFAULTS.maxConstraints,
    maxTighten: input.maxTighten ?? SYNTH_DEFAULTS.maxTighten,
    minEdges: input.minEdges ?? SYNTH_DEFAULTS.minEdges,
    maxEdges: input.maxEdges ?? SYNTH_DEFAULTS.maxEdges,
    anchorProb: input.anchorProb ?? SYNTH_DEFAULTS.anchorProb,
    perShape: input.perShape ?? SYNTH_DEFAULTS.perShape,
    excludeEdges: input.excludeEdges,
    onProgress: input.onProgress,
  };
  const bad = (m: string): never => {
    throw new LabError('bad_request', m);
  };
  if (!Number.isInteger(o.count) || o.count < 0) bad(`count must be a whole number >= 0, got ${o.count}`);
  if (!Number.isInteger(o.maxConstraints) || o.maxConstraints < 0) bad('maxConstraints must be a whole number >= 0');
  if (!Number.isInteger(o.maxTighten) || o.maxTighten < 0) bad('maxTighten must be a whole number >= 0');
  if (!Number.isInteger(o.perShape) || o.perShape < 1) bad(`perShape must be a whole number >= 1, got ${o.perShape}`);
  if (!(o.anchorProb >= 0 && o.anchorProb <= 1)) bad(`anchorProb must be in [0, 1], got ${o.anchorProb}`);
  if (!Number.isInteger(o.minEdges) || o.minEdges < 1 || !Number.isInteger(o.maxEdges) || o.maxEdges < o.minEdges)
    bad(`edge range must satisfy 1 <= minEdges <= maxEdges, got ${o.minEdges}..${o.maxEdges}`);
  for (const k of o.kinds) if (!(OBFUSCATION_KINDS as readonly string[]).includes(k)) bad(`unknown obfuscation kind '${k}'`);
  for (const [k, p] of Object.entries(o.probs)) if (!(p >= 0 && p <= 1)) bad(`probability of ${k} must be in [0, 1], got ${p}`);
  return o;
}
