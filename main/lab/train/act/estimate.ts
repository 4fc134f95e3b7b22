// How long will a run take on this machine? The wizard's review step asks before launch. A short warm-up
// measures the parts that dominate (SFT steps of the configured model and batch, policy turns decoded in a
// batch as the run plays them, expert rollouts in the configured web, the tokenizer on a slice of the
// corpus) on the backend the run would use; `estimateRun` turns those measurements and the config into a
// duration, part by part. The arithmetic is a pure function (tested); the measurement is the `estimate` job,
// off the main thread.
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import type { RunConfig } from '../../contract/run-config';
import type { RunEstimate, RunMeasurements } from '../../contract';
import { parseRunConfig } from '../../contract/run-config';
import { selectBackend } from '../../model/backend';
import { readGraphFile } from '../../kg/io';
import { datasetFile, graphFile } from '../../store/layout';
import { readDataset } from '../../synth/dataset';
import { SimWeb } from '../../agent/web';
import { simToolset } from '../../agent/env';
import { rolloutOne } from '../../agent/rollout';
import type { Rendered } from '../../agent/react';
import { Tokenizer, trainTokenizer } from '../../model/tokenizer';
import { readCheckpointManifest } from '../../model/checkpoint';
import { readJsonFile } from '../../store/files';
import { createModel, disposeModel, resolveGPTConfig } from '../../model/gpt';
import { BatchDecoder } from '../../model/batch-decoder';
import { buildMaskedTokens, fitSeqLen, makeBatch, type Batch } from '../../model/mask';
import { modelStart } from '../policy/base-model';
import { defaultWorkers, Replicas } from '../../model/replicas';
import { createOptimizer, resolveTrainConfig, trainStep } from '../../model/train';
import { createRng } from '../../util/rng';
import { CancelledError, type JobContext } from '../../jobs/context';
import { estimateParams } from '../../contract/jobs';
import { TURN_TOKENS } from '../policy/policy';
import { EPISODES_IN_FLIGHT, runLimits } from '../policy/eval-setup';
import { policyView, promptBudget, turnWindows } from '../policy/view';
import { freshModelConfig } from '../policy/base-model';
import { rftExpert } from '../policy/rft-expert';
import { estimateRun } from '../policy/estimate-run';

export { evalCount } from '../../contract/run-timeline';
export { estimateRun };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Short samples of `fn` after `warmups` untimed calls: their median, and the fastest and slowest. */
async function timeIt(fn: () => Promise<unknown>, repeats: number, warmups = 1): Promise<{ median: number; range: [number, number] }> {
  for (let i = 0; i < warmups; i++) await fn(); // kernels compile, memory is allocated, threads settle
  const ts: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await fn();
    ts.push((performance.now() - t0) / 1000);
  }
  return { median: median(ts), range: [Math.min(...ts), Math.max(...ts)] };
}

/** Samples per timed part: the median of several resists one slow moment on a busy machine. */
const SAMPLES = 5;
/**
 * Untimed SFT steps first: the first steps of a model (and of each replica thread) compile kernels and grow
 * memory, and one warm-up step left the median about 3x the run's own step time (0.28 s against 0.098 s).
 */
const STEP_WARMUPS = 4;
/** Batches of turns timed: each is EPISODES_IN_FLIGHT turns, a second or two. */
const TURN_BATCH_SAMPLES = 3;

/** The tokenizer a base model or checkpoint brings (null without one). */
function startTokenizer(dir: string): Tokenizer | null {
  const file = readCheckpointManifest(dir).tokenizer;
  return file ? Tokenizer.fromJSON(readJsonFile(join(dir, file))) : null;
}

/** The warm-up: a few seconds of the run's own work on the backend it would use. */
export async function measureRun(config: RunConfig, home: string, ctx?: Pick<JobContext, 'progress' | 'signal'>): Promise<RunMeasurements> {
  const say = (fraction: number, message: string): void => {
    if (ctx) {
      if (ctx.signal.aborted) throw new CancelledError();
      ctx.progress({ fraction, message });
    }
  };
  say(0.02, 'selecting the compute backend');
  const { report } = await selectBackend(config.backend === 'auto' ? {} : { only: [config.backend] });

  // The data and the web, as the run will see them.
  say(0.1, 'loading the graph and the questions');
  const graph = readGraphFile(graphFile(home, config.data.graphId));
  const trainQas = readDataset(datasetFile(home, config.data.datasetId)).qas;
  const heldOut = readDataset(datasetFile(home, config.data.heldOutDatasetId)).qas;
  const rlQuestions = config.rl && config.data.rlDatasetId !== undefined ? readDataset(datasetFile(home, config.data.rlDatasetId)).qas.length : undefined;
  const web = new SimWeb(graph, { topK: config.env.topK, snippetChars: config.env.snippetChars, maxEvidence: config.env.maxEvidence });
  const tools = simToolset(web);

  // Expert rollouts: up to 12 questions, evenly spread over the dataset.
  say(0.2, 'timing expert rollouts');
  const expert = rftExpert(config.rft.style, graph);
  const sample = Array.from({ length: Math.min(12, trainQas.length) }, (_, i) => trainQas[Math.floor((i * trainQas.length) / Math.min(12, trainQas.length))]!);
  const limits = runLimits(config);
  const t0 = performance.now();
  let turns = 0;
  const episodes: Rendered[] = [];
  for (const qa of sample) {
    const { steps } = await rolloutOne(qa, 0, expert, tools, { n: 1, seed: config.rng, limits });
    turns += steps.length;
    episodes.push(policyView(qa.question, steps));
  }
  const rolloutSeconds = (performance.now() - t0) / 1000 / Math.max(1, sample.length);
  const turnsPerTrajectory = turns / Math.max(1, sample.length);

  // The tokenizer on a tenth of the pages, scaled.
  say(0.35, 'timing the tokenizer');
  const pages = web.pages.map((p) => `${p.title}\n${p.sentences.join(' ')}`);
  const slice = pages.filter((_, i) => i % 10 === 0);
  const t1 = performance.now();
  const sliceTokenizer = trainTokenizer(slice, { vocabSize: config.tokenizer.vocabSize });
  const tokenizerSeconds = ((performance.now() - t1) / 1000) * (pages.length / Math.max(1, slice.length));

  // The model: SFT steps on random windows of the configured shape, then one policy turn.
  say(0.5, `timing SFT steps on ${report.chosen}`);
  // A run that starts from a checkpoint trains that checkpoint's model.
  const origin = modelStart(config, home);
  const gpt = origin.kind === 'scratch' ? freshModelConfig(config.model, config.tokenizer.vocabSize) : resolveGPTConfig(origin.model);
  const model = createModel(gpt, { seed: config.rng });
  const trainCfg = resolveTrainConfig({ lr: config.sft.lr, batchSize: config.sft.batchSize, seqLen: gpt.blockSize, maxSteps: 10, warmupSteps: 0, decaySteps: 10 });
  const opt = createOptimizer(model, trainCfg);
  const rng = createRng(config.rng);
  const window = () => {
    const ids = Array.from({ length: gpt.blockSize + 1 }, () => 11 + rng.int(gpt.vocabSize - 11));
    return { ids, mask: ids.map(() => 1) };
  };
  // SFT trains on one window per expert turn, each batch padded to its longest window (sft-job.ts), so the
  // steps are timed on windows cut the same way from the expert episodes above: full-length random windows
  // took about 3x the run's own step time.
  const tok = (origin.kind === 'scratch' ? null : startTokenizer(origin.dir)) ?? sliceTokenizer;
  const sftWindows = episodes.flatMap((v) => turnWindows(buildMaskedTokens(tok, v.text, v.spans), gpt.blockSize, TURN_TOKENS));
  const sftBatch = (): Batch => {
    const picks = Array.from({ length: config.sft.batchSize }, () => (sftWindows.length ? sftWindows[rng.int(sftWindows.length)]! : window()));
    return makeBatch(picks, fitSeqLen(picks, gpt.blockSize), tok.special('<|pad|>'));
  };
  // As many threads as the run will share each batch among (model/replicas.ts).
  const workers = config.workers === 'auto' ? defaultWorkers(report.chosen, config.sft.batchSize) : config.workers;
  const replicas = workers > 1 ? await Replicas.start(model, workers - 1) : undefined;
  try {
    const step = await timeIt(() => trainStep(model, opt, sftBatch(), trainCfg, replicas), SAMPLES, STEP_WARMUPS);
    say(0.8, 'timing policy turns');
    // Evaluations, RL and the too-easy filter play EPISODES_IN_FLIGHT episodes at once, their turns decoded as
    // one batch, so a turn costs the batch's time over its rows (one turn alone costs several times that).
    // A compact turn writes about a third of its token budget; the prefill is the full context.
    const decoder = new BatchDecoder(model);
    const prompt = (): number[] => window().ids.slice(0, promptBudget(gpt.blockSize, TURN_TOKENS));
    const turnBatch = (): Promise<unknown> =>
      Promise.all(Array.from({ length: EPISODES_IN_FLIGHT }, () => decoder.sample(prompt(), { maxNewTokens: Math.ceil(TURN_TOKENS / 3), temperature: 1, rng, stopTokens: [] })));
    const batchTime = await timeIt(turnBatch, TURN_BATCH_SAMPLES);
    await decoder.drain();
    const turn = { median: batchTime.median / EPISODES_IN_FLIGHT, range: batchTime.range.map((t) => t / EPISODES_IN_FLIGHT) as [number, number] };
    say(1, 'measured');
    return {
      backend: report.chosen ?? 'unknown',
      stepSeconds: step.median,
      turnSeconds: turn.median,
      rolloutSeconds,
      turnsPerTrajectory,
      tokenizerSeconds,
      trainQuestions: trainQas.length,
      heldOutQuestions: heldOut.length,
      ...(rlQuestions !== undefined ? { rlQuestions } : {}),
      spread: { stepSeconds: step.range, turnSeconds: turn.range, samples: Math.min(SAMPLES, TURN_BATCH_SAMPLES) },
      load: { average: loadavg()[0]!, cores: availableParallelism() },
    };
  } finally {
    await replicas?.close();
    disposeModel(model);
    opt.dispose?.();
  }
}

/** The `estimate` job: measure, then estimate. */
export async function runEstimate(raw: unknown, ctx: JobContext): Promise<RunEstimate> {
  const { config: rawConfig } = estimateParams.parse(raw);
  const config = parseRunConfig(rawConfig);
  const m = await measureRun(config, ctx.home, ctx);
  const est = estimateRun(config, m);
  ctx.log(`estimate: ${Math.round(est.totalSeconds)} s (${est.parts.map((p) => `${p.label} ${Math.round(p.seconds)} s`).join(', ')})`);
  return est;
}
