// The data-policy loop's synthesis (WebSailor-V2; rl/frontier.ts holds the pool): fresh RL questions made during
// the RL stage with the run's own graph and the generator settings its RL set was made with, off every edge a
// protected question uses (the demonstrations and the held-out questions: RL must never ask their facts) and off
// every edge of a question the pool has already had, so each fresh question is new.
import type { Graph, QA, QAHeader } from '../../formats';
import type { SynthGenerator } from '../../contract/jobs';
import { synthesizeWith } from '../../synth/asearcher';
import type { SynthInput } from '../../synth/options';
import { datasetEdges } from '../../synth/splits';
import type { ObfuscationKind } from '../../synth/obfuscate';

/** How the RL set was made: what a fresh batch is made with. */
export interface GeneratorSettings {
  generator: SynthGenerator;
  input: Omit<SynthInput, 'count' | 'rng' | 'excludeEdges' | 'onProgress'> & { steps?: number };
}

/** A dataset header's `options`, as `sailor synth` writes them. */
interface HeaderOptions {
  kinds?: string[];
  probs?: Record<string, number>;
  max_constraints?: number;
  max_tighten?: number;
  min_edges?: number;
  max_edges?: number;
  anchor_prob?: number;
  per_shape?: number;
  steps?: number;
}

/**
 * The generator settings of a dataset: its header's `options` (as `sailor synth` writes them), else the shape of
 * its questions (edges per question; lookups when none is obfuscated), which is what a job-made set records.
 */
export function generatorSettings(header: QAHeader, qas: readonly QA[], graphName: string): GeneratorSettings {
  const generator: SynthGenerator = header.generator === 'asearcher' ? 'asearcher' : 'subgraph';
  const o = (typeof header.options === 'object' && header.options !== null ? header.options : null) as HeaderOptions | null;
  if (o && o.min_edges !== undefined) {
    return {
      generator,
      input: {
        graphName,
        ...(o.kinds ? { kinds: o.kinds as ObfuscationKind[] } : {}),
        ...(o.probs ? { probs: o.probs as Partial<Record<ObfuscationKind, number>> } : {}),
        ...(o.max_constraints !== undefined ? { maxConstraints: o.max_constraints } : {}),
        ...(o.max_tighten !== undefined ? { maxTighten: o.max_tighten } : {}),
        minEdges: o.min_edges,
        ...(o.max_edges !== undefined ? { maxEdges: o.max_edges } : {}),
        ...(o.anchor_prob !== undefined ? { anchorProb: o.anchor_prob } : {}),
        ...(o.per_shape !== undefined ? { perShape: o.per_shape } : {}),
        ...(o.steps !== undefined ? { steps: o.steps } : {}),
      },
    };
  }
  const sizes = qas.map((q) => q.subgraph.edges.length);
  const plain = qas.every((q) => q.obfuscations.length === 0);
  return {
    generator,
    input: {
      graphName,
      minEdges: Math.max(1, Math.min(...sizes)),
      maxEdges: Math.max(1, ...sizes),
      ...(plain ? { kinds: [], maxConstraints: 0, anchorProb: 1, perShape: 100_000 } : {}),
    },
  };
}

/**
 * Up to `count` fresh questions off `graph`: none uses an edge in `protectedEdges` or an edge of a question in
 * `had` (the pool's history), and each gets an id no earlier one has (`fresh-<round>-<n>`). Seeded by `rng`.
 */
export function freshQuestions(
  graph: Graph,
  settings: GeneratorSettings,
  protectedEdges: ReadonlySet<string>,
  had: readonly Pick<QA, 'subgraph'>[],
  count: number,
  rng: number,
  round: number,
): QA[] {
  if (count <= 0) return [];
  const excludeEdges = new Set([...protectedEdges, ...datasetEdges(had)]);
  const { qas } = synthesizeWith(settings.generator, graph, { ...settings.input, count, rng, excludeEdges });
  return qas.map((qa, i) => ({ ...qa, id: `fresh-${round}-${String(i + 1).padStart(4, '0')}` }));
}
