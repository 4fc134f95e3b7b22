// How long will a run take on this machine? The wizard's review step asks before launch. A short warm-up
// measures the parts that dominate (one SFT step of the configured model and batch, one policy turn, one
// expert rollout in the configured web, the tokenizer on a slice of the corpus) on the backend the run
// would use; `estimateRun` turns those measurements and the config into a duration, part by part. The
// arithmetic is a pure function (tested); the measurement is the `estimate` job, off the main thread.
import type { RunConfig } from '../contract/run-config';
import type { EstimatePart, RunEstimate, RunMeasurements } from '../contract';
import { parseRunConfig } from '../contract/run-config';
import { selectBackend } from '../model/backend';
import { readGraphFile } from '../kg/io';
import { datasetFile, graphFile } from '../store/layout';
import { readDataset } from '../synth/dataset';
import { SimWeb } from '../agent/web';
import { simToolset } from '../agent/env';
import { rolloutOne } from '../agent/rollout';
import { trainTokenizer } from '../model/tokenizer';
import { createModel, disposeModel, resolveGPTConfig } from '../model/gpt';
import { generate } from '../model/generate';
import { makeBatch } from '../model/mask';
import { modelStart, startsFresh } from './base-model';
import { defaultWorkers, Replicas } from '../model/replicas';
import { createOptimizer, resolveTrainConfig, trainStep } from '../model/train';
import { createRng } from '../util/rng';
import { CancelledError, type JobContext } from '../jobs/context';
import { estimateParams } from '../contract/jobs';
import { TURN_TOKENS } from './policy';
import { runLimits } from './eval-setup';
import { promptBudget } from './view';
import { freshModelConfig } from './sft-job';
import { rftExpert } from './rft-expert';
import { evalCount, filterQuestions } from '../contract/run-timeline';

export { evalCount };

/** The duration of a run from its config and the warm-up's measurements. Pure. */
export function estimateRun(config: RunConfig, m: RunMeasurements): RunEstimate {
  const evalTrajectories = Math.min(config.eval.questions, m.heldOutQuestions) * config.eval.samples;
  const turns = Math.min(m.turnsPerTrajectory, config.env.maxToolCalls + 1);
  const rollout = turns * m.turnSeconds; // one rollout of the policy
  const parts: EstimatePart[] = [];
  if (config.sft.steps > 0) {
    // RFT data and SFT (RL-only runs from a checkpoint have none); the tokenizer unless a checkpoint or the base model brings it.
    const rftRollouts = m.trainQuestions * (config.rft.attempts + (config.rft.forcedAnswers ? 1 : 0));
    const evals = evalCount(config.sft.steps, config.eval.every);
    parts.push(
      { stage: 'sft', key: 'rft', label: 'RFT data', seconds: rftRollouts * m.rolloutSeconds, detail: `${rftRollouts} expert rollouts` },
      ...(!startsFresh(config) ? [] : [{ stage: 'sft' as const, key: 'tokenizer' as const, label: 'tokenizer', seconds: m.tokenizerSeconds, detail: `${config.tokenizer.vocabSize}-token BPE` }]),
      { stage: 'sft', key: 'sft', label: 'SFT', seconds: config.sft.steps * m.stepSeconds, detail: `${config.sft.steps} steps × ${fmt(m.stepSeconds)} s` },
      { stage: 'sft', key: 'eval', label: 'evaluation', seconds: evals * evalTrajectories * rollout, detail: `${evals} × ${evalTrajectories} rollouts × ~${fmt(turns)} turns × ${fmt(m.turnSeconds)} s` },
    );
  }
  if (config.rl) {
    const rl = config.rl;
    const perStep = rl.batchQuestions * rl.groupSize;
    // DUPO filters its question pool (at most steps × batchQuestions questions) once with the starting policy
    // (the data-policy loop's frontier pool judges questions as it plays them instead).
    const pool = filterQuestions(config, m.rlQuestions ?? m.trainQuestions);
    if (pool > 0) {
      parts.push({ stage: 'rl', key: 'filter', label: 'too-easy filter', seconds: pool * rl.groupSize * rollout, detail: `${pool} questions × G ${rl.groupSize}, once` });
    }
    parts.push({ stage: 'rl', key: 'rl', label: 'RL rollouts', seconds: rl.steps * perStep * rollout, detail: `${rl.steps} steps × ${perStep} rollouts × ~${fmt(turns)} turns` });
    // An update trains on one window per generated turn; an SFT step of batchSize windows is the unit.
    const windows = perStep * turns;
    parts.push({
      stage: 'rl',
      key: 'rl',
      label: 'RL updates',
      seconds: rl.steps * rl.updatesPerBatch * (windows / config.sft.batchSize) * m.stepSeconds,
      detail: `${rl.steps} × ${rl.updatesPerBatch} update${rl.updatesPerBatch === 1 ? '' : 's'} of ~${Math.round(windows)} windows`,
    });
    const evals = evalCount(rl.steps, rl.evalEvery);
    parts.push({ stage: 'rl', key: 'eval', label: 'RL evaluation', seconds: evals * evalTrajectories * rollout, detail: `${evals} × ${evalTrajectories} rollouts` });
  }
  const totalSeconds = parts.reduce((a, p) => a + p.seconds, 0);
  const dapo = config.rl?.algorithm === 'dapo' ? '; DAPO refills add rollouts not counted here' : '';
  // A busy machine makes single samples swing: the range is the total at the fastest and the slowest sample.
  const sp = m.spread;
  const at = (i: 0 | 1): number => estimateRun(config, { ...m, stepSeconds: sp!.stepSeconds[i], turnSeconds: sp!.turnSeconds[i], spread: undefined }).totalSeconds;
  return {
    totalSeconds,
    parts,
    measured: m,
    ...(sp ? { range: [at(0), at(1)] as [number, number] } : {}),
    basis: `measured just now on ${m.backend}: the median of ${sp?.samples ?? 1} SFT steps and policy turns, expert rollouts; turns per trajectory from the expert${dapo}`,
  };
}

function fmt(x: number): string {
  return x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toFixed(2);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Short samples of `fn` after one warm-up: their median, and the fastest and slowest. */
async function timeIt(fn: () => Promise<unknown>, repeats: number): Promise<{ median: number; range: [number, number] }> {
  await fn(); // warm-up: kernels compile, memory is allocated
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
  for (const qa of sample) turns += (await rolloutOne(qa, 0, expert, tools, { n: 1, seed: config.rng, limits })).steps.length;
  const rolloutSeconds = (performance.now() - t0) / 1000 / Math.max(1, sample.length);
  const turnsPerTrajectory = turns / Math.max(1, sample.length);

  // The tokenizer on a tenth of the pages, scaled.
  say(0.35, 'timing the tokenizer');
  const pages = web.pages.map((p) => `${p.title}\n${p.sentences.join(' ')}`);
  const slice = pages.filter((_, i) => i % 10 === 0);
  const t1 = performance.now();
  trainTokenizer(slice, { vocabSize: config.tokenizer.vocabSize });
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
  // As many threads as the run will share each batch among (model/replicas.ts).
  const workers = config.workers === 'auto' ? defaultWorkers(report.chosen, config.sft.batchSize) : config.workers;
  const replicas = workers > 1 ? await Replicas.start(model, workers - 1) : undefined;
  try {
    const batch = makeBatch(Array.from({ length: config.sft.batchSize }, window), gpt.blockSize, 0);
    const step = await timeIt(() => trainStep(model, opt, batch, trainCfg, replicas), SAMPLES);
    say(0.8, 'timing a policy turn');
    const prompt = window().ids.slice(0, promptBudget(gpt.blockSize, TURN_TOKENS));
    // A compact turn writes about a third of its token budget; the prefill is the full context.
    const turn = await timeIt(() => generate(model, prompt, { maxNewTokens: Math.ceil(TURN_TOKENS / 3), temperature: 1, rng, stopTokens: [] }), SAMPLES);
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
      spread: { stepSeconds: step.range, turnSeconds: turn.range, samples: SAMPLES },
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
