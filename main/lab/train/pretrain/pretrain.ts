// `sailor pretrain`: the base model the papers start from, at this lab's scale. Causal-LM pre-training of
// the policy on text the lab owns (pretrain-corpus.ts): the simulated web built from the whole bundled
// knowledge base, and expert episodes on lookups over it in the ReAct format the policy writes (agentic
// continual pre-training). Top to bottom: knowledge base -> web -> episodes -> tokenizer -> rows -> the
// loop -> one checkpoint whose manifest keeps the recipe (seed, data, steps, config), so the same command
// makes the same model. Questions that use an edge of a `holdOut` graph are never made into episodes, so a
// held-out set on that graph asks about facts the base model read only as web pages.
import * as tf from '@tensorflow/tfjs';
import type { Graph } from '../../formats';
import { LabError } from '../../base/errors';
import { createRng, seedFrom } from '../../util/rng';
import { selectBackend } from '../../model/backend';
import { kbVersion, loadKnowledgeBase } from '../../kb/index';
import { synthesize } from '../../synth/build';
import { SimWeb } from '../../agent/web';
import { simToolset } from '../../agent/env';
import { rolloutDataset } from '../../agent/rollout';
import { trainTokenizer, type Tokenizer } from '../../model/tokenizer';
import { createModel, disposeModel, resolveGPTConfig, type GPTPreset } from '../../model/gpt';
import { buildMaskedTokens, fitSeqLen, makeBatch, type MaskedTokens } from '../../model/mask';
import { createOptimizer, resolveTrainConfig, trainStep } from '../../model/train';
import { defaultWorkers, Replicas } from '../../model/replicas';
import { saveCheckpoint, type CheckpointManifest } from '../../model/checkpoint';
import { runConfigSchema } from '../../contract/run-config';
import { QUESTION_STYLES } from '../../contract/question-styles';
import { policyView, turnWindows } from '../policy/view';
import { TURN_TOKENS } from '../policy/policy';
import { runLimits } from '../policy/eval-setup';
import { rftExpert } from '../policy/rft-expert';
import { documentRows, fullLoss, mixedPick, webDocuments } from './pretrain-corpus';
import { isCorrect } from '../../contract/correct';

export interface PretrainOptions {
  /** The checkpoint directory to write (replaced if it exists). */
  out: string;
  steps: number;
  rng: number;
  /** Lookups synthesised on the knowledge base for the expert's episodes. */
  episodes: number;
  /** Share of each batch drawn from the episodes (the rest from the web). */
  episodeShare: number;
  vocabSize: number;
  /** The shape: the preset's, with these overrides. */
  model: { preset: GPTPreset; nLayer: number; nEmbd: number; nHead: number; distanceBias: boolean; blockSize?: number };
  batchSize: number;
  lr: number;
  minLr: number;
  warmupSteps: number;
  /** Threads sharing each batch; 0 = every core. */
  workers: number;
  /** Graphs whose edges no episode's question may use (and their file names, for the recipe). */
  holdOut: { name: string; graph: Pick<Graph, 'edges'> }[];
  /** The text's source: a graph of one's own (and its name), instead of the whole bundled knowledge base. */
  source?: { name: string; graph: Graph };
}

export const PRETRAIN_DEFAULTS: Omit<PretrainOptions, 'out' | 'holdOut'> = {
  steps: 6000,
  rng: 1,
  episodes: 5000,
  episodeShare: 0.5,
  vocabSize: 1024,
  model: { preset: 'tiny', nLayer: 2, nEmbd: 64, nHead: 4, distanceBias: true },
  batchSize: 8,
  lr: 2e-3,
  minLr: 2e-4,
  warmupSteps: 100,
  workers: 0,
};

export interface PretrainHooks {
  progress: (fraction: number, message: string) => void;
  log: (message: string) => void;
}

/** Pre-trains a base model and writes its checkpoint (weights, tokenizer, the recipe in the manifest). */
export async function pretrain(o: PretrainOptions, hooks: PretrainHooks): Promise<CheckpointManifest> {
  if (!(Number.isInteger(o.steps) && o.steps >= 1)) throw new LabError('bad_request', `steps must be a whole number >= 1, got ${o.steps}`);
  if (!(o.episodeShare >= 0 && o.episodeShare <= 1)) throw new LabError('bad_request', `episodeShare must be in [0, 1], got ${o.episodeShare}`);
  const { report } = await selectBackend();
  hooks.log(`compute backend: ${report.chosen}`);

  // ---- 1. the simulated web over the whole knowledge base (or the given graph), in the runs' default settings
  const kb = o.source?.graph ?? (await loadKnowledgeBase());
  const sourceName = o.source?.name ?? `kb-${kbVersion()}`;
  const env = runConfigSchema.shape.env.parse(undefined);
  const web = new SimWeb(kb, { topK: env.topK, snippetChars: env.snippetChars, maxEvidence: env.maxEvidence });
  hooks.progress(0.02, `simulated web: ${web.pages.length} pages`);

  // ---- 2. expert episodes on lookups, off every held-out graph's edges
  const excludeEdges = new Set(o.holdOut.flatMap((h) => h.graph.edges.map((e) => e.id)));
  const { qas } = synthesize(kb, {
    count: o.episodes,
    rng: o.rng,
    graphName: sourceName,
    ...QUESTION_STYLES.lookup.params,
    minEdges: 1,
    maxEdges: 2,
    excludeEdges,
    onProgress: ({ published, target }) => hooks.progress(0.02 + (0.1 * published) / target, `lookups for the episodes: ${published} of ${target}`),
  });
  const limits = runLimits({ env });
  const trajs = await rolloutDataset(qas, rftExpert('compact', kb), simToolset(web), { n: 1, seed: o.rng, limits }, (done, total) => {
    if (done % 200 === 0 || done === total) hooks.progress(0.12 + (0.06 * done) / total, `expert episodes: ${done} of ${total}`);
  });
  const question = new Map(qas.map((q) => [q.id, q.question]));
  const solved = trajs.filter((t) => isCorrect(t.reward));
  const episodeTexts = solved.map((t) => policyView(question.get(t.qa_id) ?? '', t.steps));
  hooks.log(`${qas.length} lookups, ${solved.length} solved by the expert`);

  // ---- 3. tokenizer, on an even spread of both kinds of text
  const webTexts = webDocuments(web);
  const spread = <T>(xs: readonly T[], n: number): T[] => xs.filter((_, i) => i % Math.max(1, Math.ceil(xs.length / n)) === 0);
  hooks.progress(0.19, `training a ${o.vocabSize}-token BPE tokenizer`);
  const tok = trainTokenizer([...spread(episodeTexts.map((v) => v.text), 4000), ...spread(webTexts, 8000)], { vocabSize: o.vocabSize });

  // ---- 4. rows: episodes cut as the policy's context is cut, web documents in consecutive pieces
  const gpt = resolveGPTConfig({ ...o.model, vocabSize: tok.vocabSize });
  const episodeRows: MaskedTokens[] = episodeTexts.flatMap((v) => turnWindows(buildMaskedTokens(tok, v.text, v.spans), gpt.blockSize, TURN_TOKENS).map(fullLoss));
  const webRows = webTexts.flatMap((t) => documentRows(tok, t, gpt.blockSize));
  hooks.log(`${episodeRows.length} episode rows, ${webRows.length} web rows`);

  // ---- 5. the loop
  const train = resolveTrainConfig(
    { lr: o.lr, minLr: o.minLr, warmupSteps: o.warmupSteps, decaySteps: o.steps, maxSteps: o.steps, batchSize: o.batchSize, seqLen: gpt.blockSize, seed: o.rng },
  );
  const model = createModel(gpt, { seed: o.rng });
  const opt = createOptimizer(model, train);
  const rng = createRng(seedFrom(`pretrain/${o.rng}/batches`));
  const pad = tok.special('<|pad|>');
  const workers = o.workers > 0 ? o.workers : defaultWorkers(report.chosen, o.batchSize);
  const replicas = workers > 1 ? await Replicas.start(model, workers - 1) : undefined;
  hooks.log(`pretraining on ${workers} thread${workers === 1 ? '' : 's'}`);
  const t0 = performance.now();
  let recent = 0;
  try {
    for (let step = 1; step <= o.steps; step++) {
      const picks = mixedPick(episodeRows, webRows, o.episodeShare, o.batchSize, (n) => rng.int(n), () => rng.next());
      const r = await trainStep(model, opt, makeBatch(picks, fitSeqLen(picks, gpt.blockSize), pad), train, replicas);
      recent = step === 1 ? r.loss : 0.98 * recent + 0.02 * r.loss;
      if (step % 50 === 0 || step === o.steps) {
        const eta = ((performance.now() - t0) / step) * (o.steps - step) / 1000;
        hooks.progress(0.2 + (0.8 * step) / o.steps, `pretrain step ${step} of ${o.steps}: loss ${recent.toFixed(3)} (about ${Math.round(eta)} s left)`);
      }
    }
    return await saveCheckpoint(
      o.out,
      {
        model,
        step: o.steps,
        tokenizer: tok,
        train,
        lineage: { run: null, parent: null, dataset: sourceName, stage: 'pretrain' },
        metrics: { 'pretrain/loss': recent, 'pretrain/episodes': solved.length, 'pretrain/episode_rows': episodeRows.length, 'pretrain/web_rows': webRows.length, 'pretrain/seconds': (performance.now() - t0) / 1000 },
        recipe: recipeOf(o, tok),
      },
      { overwrite: true },
    );
  } finally {
    await replicas?.close();
    disposeModel(model);
    opt.dispose();
    if (tf.memory().numTensors > 0) hooks.log(`tensors left: ${tf.memory().numTensors}`);
  }
}

/** What the manifest keeps to make the model again: every option but where it was written. */
function recipeOf(o: PretrainOptions, tok: Tokenizer): Record<string, unknown> {
  const { out: _out, holdOut, source, ...rest } = o;
  return { command: 'sailor pretrain', knowledgeBase: kbVersion(), source: source?.name ?? 'knowledge base', ...rest, holdOut: holdOut.map((h) => h.name), vocab: tok.vocabSize };
}
