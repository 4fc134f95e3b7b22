// The `train` job: one training run from its config, readable top to bottom (nanoGPT's train.py shape).
//   1. data       graph, training QAs, held-out QAs, the compact simulated web (run config `env`)
//   2. RFT        expert rollouts with rejection sampling -> data/rft.jsonl (kept across resumes)
//   3. tokenizer  BPE on the RFT trajectories and the web's pages -> data/tokenizer.json
//   4. model      fresh from the preset (or `init.checkpoint`'s weights), or the last checkpoint when resuming
//   5. loop       masked SFT steps; every `eval.every`: held-out loss and rollouts of the policy on held-out
//                 QAs; every `checkpoint.every` and at the end: a checkpoint. Metrics stream per step.
//   5b. relabel   with a `relabel` section: DAgger rounds (train/sft/relabel-stage.ts) from the last SFT weights
//   6. RL         with an `rl` section: the RL stage (rl-job.ts) from the last SFT weights, steps N+1..N+M.
// With `init.checkpoint` the checkpoint's tokenizer replaces step 3 and its weights the fresh model; with
// 0 SFT steps (the default then) steps 2-5 are skipped and the checkpoint goes straight to RL.
// A kill at any moment loses at most the steps since the last checkpoint: resuming truncates the metrics
// stream to that step and continues the same RNG sequence, so steps stay continuous.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../../base/errors';
import { ANSWER_IN_WINDOW_MIN } from '../../contract';
import { readJsonFile, writeJsonAtomic } from '../../store/files';
import { createRng, seedFrom, type Rng } from '../../util/rng';
import { selectBackend } from '../../model/backend';
import { readGraphFile } from '../../kg/io';
import { datasetFile, graphFile } from '../../store/layout';
import { writeTrajectorySet } from '../../store/traj-set';
import { readDataset } from '../../synth/dataset';
import { SimWeb } from '../../agent/web';
import { simToolset } from '../../agent/env';
import { rolloutDataset, rolloutOne } from '../../agent/rollout';
import { filterTrajectories, type RftReport } from '../../agent/rft';
import { readTrajectories } from '../../agent/data';
import { Tokenizer, trainTokenizer } from '../../model/tokenizer';
import { createModel, disposeModel, resolveGPTConfig, type GPT, type GPTConfig } from '../../model/gpt';
import { loss } from '../../model/logprobs';
import { buildMaskedTokens, fitSeqLen, makeBatch, type MaskedTokens } from '../../model/mask';
import { createOptimizer, resolveTrainConfig, sftMetrics, trainStep, type TrainConfig } from '../../model/train';
import { defaultWorkers, Replicas } from '../../model/replicas';
import { loadCheckpoint, saveCheckpoint } from '../../model/checkpoint';
import { parseRunConfig, relabelSteps, type RunConfig } from '../../contract/run-config';
import { runRelabelStage } from '../sft/relabel-stage';
import { checkpointDir, checkpointRef, dataDir, rftFile as rftPath, runFile } from '../../runs/layout';
import { trainParams } from '../../contract/jobs';
import { throwIfCancelled, type JobContext } from '../../jobs/context';
import { policyView, promptBudget, repeatAnswerTurns, turnWindows, validationQuestions } from '../policy/view';
import { answerInWindow, TURN_TOKENS } from '../policy/policy';
import { runLimits } from '../policy/eval-setup';
import { runRlStage } from '../rl-stage/rl-job';
import { evaluatePolicy, openRunMetrics, stepFraction, type TrainHooks, type TrainRun } from '../policy/run';
import { STARTS_OVER } from '../../runs/metrics';
import { rftExpert } from '../policy/rft-expert';
import { loadNewestVerifiedCheckpoint } from '../policy/checkpoints';
import { modelStart, startsFresh } from '../policy/base-model';
import { evalsBy, openRunClock, runPlanCounts, timedContext, type RunClock } from '../policy/run-clock';
import { ownSamples } from '../sft/rft-source';
import { baseQaId, renamedRollouts, renamedText } from '../sft/renamed-episodes';
import type { Trajectory } from '../../formats';

/** The shape of a run's fresh model: its preset with the run's overrides, and the tokenizer's vocabulary. */
export function freshModelConfig(model: RunConfig['model'], vocabSize: number): GPTConfig {
  const { preset, base: _base, ...overrides } = model;
  const set = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return resolveGPTConfig({ preset, vocabSize, ...set });
}

export type { TrainHooks } from '../policy/run';

/** What a run is given before it has a model: the job, the run, its data and simulated web. */
type RunInputs = Omit<TrainRun, 'model' | 'tok' | 'emit' | 'fraction'>;

export async function runTrain(raw: unknown, jobCtx: JobContext, hooks: TrainHooks = {}): Promise<{ runId: string; step: number }> {
  const { runId, resume } = trainParams.parse(raw);
  let ctx = jobCtx;
  const stored = readJsonFile(runFile(ctx.home, runId)) as { config: unknown };
  const config = parseRunConfig(stored.config, `${runId}/run.json`);
  const origin = modelStart(config, ctx.home); // a missing base model fails now, not after the RFT data
  if (origin.kind === 'scratch') freshModelConfig(config.model, config.tokenizer.vocabSize); // so does a bad model shape

  // ---- backend
  const { report } = await selectBackend(config.backend === 'auto' ? {} : { only: [config.backend] });
  ctx.log(`compute backend: ${report.chosen}`);

  // ---- 1. data
  const graph = readGraphFile(graphFile(ctx.home, config.data.graphId));
  const trainQas = readDataset(datasetFile(ctx.home, config.data.datasetId)).qas;
  const rlQas = config.data.rlDatasetId === undefined ? trainQas : readDataset(datasetFile(ctx.home, config.data.rlDatasetId)).qas;
  const heldOut = readDataset(datasetFile(ctx.home, config.data.heldOutDatasetId)).qas.slice(0, config.eval.questions);
  const web = new SimWeb(graph, { topK: config.env.topK, snippetChars: config.env.snippetChars, maxEvidence: config.env.maxEvidence });
  const tools = simToolset(web);
  const limits = runLimits(config);
  // The progress bar and time left over every stage, by measured time (run-clock.ts).
  // Relabeling's steps are SFT steps to the clock (their rollouts are a few seconds a round).
  const planned = config.relabel ? { ...config, sft: { ...config.sft, steps: config.sft.steps + relabelSteps(config) } } : config;
  const clock = openRunClock(ctx.home, runId, planned, runPlanCounts(config, { train: trainQas.length, heldOut: heldOut.length, rl: rlQas.length }, startsFresh(config)));
  ctx = timedContext(jobCtx, clock);
  const inputs: RunInputs = { ctx, runId, config, rlQas, heldOut, tools, limits, hooks, expert: rftExpert(config.rft.style, graph), clock };
  // Relabeling trains on the RFT rows too: a run from a checkpoint that relabels makes them.
  if (origin.kind === 'checkpoint' && config.sft.steps === 0 && !config.relabel) return runFromCheckpoint(inputs, resume, origin);
  // The bar is the share of the run's steps done (SFT and RL), as the dashboard counts them.
  const sftEnd = config.sft.steps + relabelSteps(config); // SFT's steps, then relabeling's
  const totalSteps = sftEnd + (config.rl?.steps ?? 0);
  const fraction = (s: number): number => stepFraction(s, totalSteps);

  // ---- 2. RFT data (made once per run; a resumed run reuses it)
  const rftFile = rftPath(ctx.home, runId);
  if (!existsSync(rftFile)) {
    // Before step 0 the bar stays at 0; the message counts the expert's rollouts. With data.trajectoriesId the
    // RFT data is a policy's own samples instead (rejection fine-tuning): the same filters keep the correct ones.
    const training = { datasetId: config.data.datasetId, qas: trainQas };
    const all = config.data.trajectoriesId !== undefined ? ownSamples(ctx.home, config.data.trajectoriesId, training, (m) => ctx.log(`warning: ${m}`)) : await expertRollouts();
    if (config.renamed.copies > 0) {
      // The held-out set whole (not only the evaluated slice): none of its names may enter a renamed world.
      const protect = readDataset(datasetFile(ctx.home, config.data.heldOutDatasetId)).qas;
      const web = { topK: config.env.topK, snippetChars: config.env.snippetChars, maxEvidence: config.env.maxEvidence };
      all.push(...(await renamedRollouts({ graph, train: trainQas, protect, config, web, limits }, (k, n) => ctx.progress({ fraction: 0, message: `renamed episodes: world ${k} of ${n}` }))));
    }
    const { kept, report: rft } = filterTrajectories(all, { attempts: config.rft.attempts, minToolCalls: config.rft.minToolCalls, maxTokens: config.rft.maxTokens });
    if (kept.length === 0) throw new LabError('conflict', `RFT kept no trajectory (${JSON.stringify(rft.removed)}); relax rft.minToolCalls or use more QAs`);
    writeJsonAtomic(join(dataDir(ctx.home, runId), 'rft-report.json'), rft, true);
    writeTrajectorySet(rftFile, { kind: 'rft', report: rft, ...(config.data.trajectoriesId !== undefined ? { from: config.data.trajectoriesId } : {}) }, kept);
  } else clock.skip('rft');
  /** The expert's attempts at every training question (config.rft), the RFT data's usual source. */
  async function expertRollouts(): Promise<Trajectory[]> {
    const progress = (_f: number, message: string): void => ctx.progress({ fraction: 0, message });
    const expert = rftExpert(config.rft.style, graph);
    const total = trainQas.length * (config.rft.attempts + (config.rft.forcedAnswers ? 1 : 0));
    clock.begin('rft');
    const all = await rolloutDataset(trainQas, expert, tools, { n: config.rft.attempts, seed: config.rng, limits }, (done) => {
      clock.soFar('rft', done);
      progress(done / total, `expert rollouts for RFT data: ${done} of ${total}`);
      throwIfCancelled(ctx);
    });
    if (config.rft.forcedAnswers) {
      // One more attempt per question on a third of the tool-call budget: the runtime then tells the agent
      // to stop and answer, and the kept (correct) ones show the policy what to do at that message.
      const short = { ...limits, maxToolCalls: Math.max(1, Math.floor(config.env.maxToolCalls / 3)) };
      for (const qa of trainQas) {
        all.push(await rolloutOne(qa, config.rft.attempts, expert, tools, { n: 1, seed: config.rng, limits: short }));
        clock.soFar('rft', all.length);
        progress(all.length / total, `expert rollouts for RFT data: ${all.length} of ${total}`);
        throwIfCancelled(ctx);
      }
    }
    return all;
  }
  const rftTrajs = readTrajectories(rftFile);
  const rftReport = JSON.parse(readFileSync(join(dataDir(ctx.home, runId), 'rft-report.json'), 'utf8')) as RftReport;
  const qaOf = new Map(trainQas.map((q) => [q.id, q]));
  const views = rftTrajs.map((t) => policyView(renamedText(t)?.question ?? qaOf.get(t.qa_id)?.question ?? '', t.steps));

  // ---- 3. tokenizer (made once per run; a run from a checkpoint keeps the checkpoint's)
  const resumed = resume ? await loadNewestVerifiedCheckpoint(ctx.home, runId, (m) => ctx.log(m)) : undefined;
  const last = resumed?.step;
  const initRef = origin.kind === 'scratch' ? null : origin.ref;
  // Weights and tokenizer of init.checkpoint or the base model, needed unless resuming from this run's own checkpoint.
  const start = origin.kind !== 'scratch' && last === undefined ? await loadCheckpoint(origin.dir) : null;
  start?.optimizer?.dispose(); // this run has its own AdamW and schedule
  const tokFile = join(dataDir(ctx.home, runId), 'tokenizer.json');
  if (!existsSync(tokFile) && start) {
    if (!start.tokenizer) throw new LabError('corrupt', `checkpoint ${initRef} has no tokenizer`);
    writeJsonAtomic(tokFile, start.tokenizer.toJSON());
  } else if (!existsSync(tokFile)) {
    ctx.progress({ fraction: 0, message: `training a ${config.tokenizer.vocabSize}-token BPE tokenizer` });
    clock.begin('tokenizer');
    const corpus = [...views.map((v) => v.text), ...web.pages.map((p) => `${p.title}\n${p.sentences.join(' ')}`)];
    writeJsonAtomic(tokFile, trainTokenizer(corpus, { vocabSize: config.tokenizer.vocabSize }).toJSON());
    clock.soFar('tokenizer', 1);
  } else clock.skip('tokenizer');
  const tok = Tokenizer.fromJSON(readJsonFile(tokFile));

  // Training examples: one window per generated turn; every 10th question's windows are held out for val/loss.
  const gptConfig = origin.kind === 'scratch' ? freshModelConfig(config.model, tok.vocabSize) : resolveGPTConfig(origin.model);
  const turnRows: MaskedTokens[] = [];
  const valWindows: MaskedTokens[] = [];
  // A renamed episode goes where its question goes, so validation stays off the training questions' facts.
  const valQuestions = validationQuestions(rftTrajs.map((t) => baseQaId(t.qa_id)));
  views.forEach((v, i) => {
    const windows = turnWindows(buildMaskedTokens(tok, v.text, v.spans), gptConfig.blockSize, TURN_TOKENS);
    (valQuestions.has(baseQaId(rftTrajs[i]!.qa_id)) ? valWindows : turnRows).push(...windows);
  });
  const trainWindows = repeatAnswerTurns(turnRows, tok.special('<answer>'), config.sft.answerRepeat);
  if (trainWindows.length === 0) throw new LabError('conflict', 'no training windows: the RFT data is empty');
  // Measured on an even spread of at most 2000 trajectories: enough for the share, cheap on large RFT sets.
  const spread = rftTrajs.filter((_, i) => i % Math.ceil(rftTrajs.length / 2000) === 0);
  const answerSeen = answerInWindow(
    tok,
    spread.map((t) => {
      const qa = qaOf.get(t.qa_id);
      const renamed = renamedText(t);
      if (renamed) return { ...renamed, steps: t.steps };
      return { question: qa?.question ?? '', steps: t.steps, answers: qa ? [qa.answer, ...(qa.aliases ?? [])] : [] };
    }),
    gptConfig.blockSize,
  );
  if (answerSeen < ANSWER_IN_WINDOW_MIN) {
    ctx.log(
      `warning: in ${(100 * (1 - answerSeen)).toFixed(1)}% of the RFT answer turns the answer is outside the policy's ${promptBudget(gptConfig.blockSize, TURN_TOKENS)}-token prompt window ` +
        `(model.blockSize ${gptConfig.blockSize}); a larger model.blockSize lets the policy see the evidence it must answer from`,
    );
  }

  // ---- 4. model: fresh, or the last checkpoint
  const trainCfg: TrainConfig = resolveTrainConfig({
    lr: config.sft.lr,
    minLr: config.sft.minLr,
    warmupSteps: config.sft.warmupSteps,
    decaySteps: config.sft.steps,
    maxSteps: config.sft.steps,
    weightDecay: config.sft.weightDecay,
    gradClip: config.sft.gradClip,
    batchSize: config.sft.batchSize,
    seqLen: gptConfig.blockSize,
    seed: config.rng,
  });
  let model: GPT;
  let opt;
  let rng: Rng;
  let step: number;
  let rlVersion = 0;
  if (resumed !== undefined && last !== undefined) {
    const { loaded } = resumed;
    model = loaded.model;
    opt = loaded.optimizer ?? createOptimizer(model, trainCfg);
    rng = createRng(loaded.rngState ?? seedFrom(`${runId}/batches/${last}`));
    step = loaded.step;
    rlVersion = loaded.manifest.metrics['rl/policy_version'] ?? step - sftEnd;
    ctx.log(`resumed from step ${step}`);
  } else {
    model = start?.model ?? createModel(gptConfig, { seed: config.rng });
    opt = createOptimizer(model, trainCfg);
    if (initRef) ctx.log(origin.kind === 'base' ? `SFT from the base model (${origin.dir})` : `SFT from checkpoint ${initRef}`);
    rng = createRng(seedFrom(`${runId}/batches`));
    step = 0;
  }
  const metrics = openRunMetrics(ctx, runId, resumed !== undefined && last !== undefined ? step : STARTS_OVER);
  if (step > 0) resumedOnClock(clock, config, step, heldOut.length);
  const emit = clockedEmit(metrics.emit, clock, sftEnd);
  const run: TrainRun = { ...inputs, model, tok, emit, fraction };
  if (step === 0) {
    emit(0, {
      'rft/kept': rftReport.kept,
      'rft/questions_kept': rftReport.questions_kept,
      ...Object.fromEntries(Object.entries(rftReport.removed).map(([k, v]) => [`rft/removed_${k}`, v])),
      'sft/train_windows': turnRows.length,
      'sft/val_windows': valWindows.length,
      'sft/answer_in_window': answerSeen,
    });
  }

  // ---- 5. the loop
  const pad = tok.special('<|pad|>');
  const checkpoint = async (s: number, extra: Record<string, number>): Promise<void> => {
    await saveCheckpoint(
      checkpointDir(ctx.home, runId, s),
      { model, step: s, optimizer: opt, tokenizer: tok, train: trainCfg, rngState: rng.state(), lineage: { run: runId, dataset: config.data.datasetId, stage: 'sft', parent: initRef }, metrics: extra },
      { overwrite: true },
    );
  };
  const workers = config.workers === 'auto' ? defaultWorkers(report.chosen, config.sft.batchSize) : config.workers;
  const replicas = step < sftEnd && workers > 1 ? await Replicas.start(model, workers - 1) : undefined;
  if (replicas) ctx.log(`SFT on ${workers} threads (data-parallel, ${report.chosen})`);
  try {
    while (step < config.sft.steps) {
      throwIfCancelled(ctx);
      const t0 = performance.now();
      const picks = Array.from({ length: config.sft.batchSize }, () => trainWindows[rng.int(trainWindows.length)]!);
      const batch = makeBatch(picks, fitSeqLen(picks, gptConfig.blockSize), pad);
      if (config.unlikelihood.weight > 0) batch.unlikelihood = config.unlikelihood;
      const r = await trainStep(model, opt, batch, trainCfg, replicas);
      step++;
      const seconds = (performance.now() - t0) / 1000;
      const m: Record<string, number> = { ...sftMetrics(r, seconds), 'timing/update_s': seconds };
      const evalNow = step % config.eval.every === 0 || step === config.sft.steps;
      if (evalNow) Object.assign(m, await validate(model, valWindows, gptConfig.blockSize, pad), await evaluatePolicy(run, step));
      emit(step, m);
      ctx.progress({ fraction: fraction(step), message: `SFT step ${step} of ${config.sft.steps}: loss ${r.loss.toFixed(3)}`, done: step, total: config.sft.steps });
      if (step % config.checkpoint.every === 0 || step === config.sft.steps) await checkpoint(step, m);
    }

    // ---- 5b. relabeling (DAgger) from the last SFT weights, with its own optimiser (or the resumed round's)
    if (config.relabel && step < sftEnd) {
      const inStage = step > config.sft.steps;
      if (!inStage) opt.dispose();
      const names = new Map(graph.nodes.map((n) => [n.id, n.name]));
      step = await runRelabelStage(run, { step, rftRows: trainWindows, trainQas, opt: inStage ? opt : undefined, replicas, anchorName: (id) => names.get(id) });
    }
    await replicas?.close(); // their threads are idle from here on

    // ---- 6. RL from the last SFT weights (or from the RL checkpoint being resumed)
    if (config.rl && step < totalSteps) {
      const inRl = step > sftEnd;
      if (!inRl) opt.dispose(); // RL has its own optimiser (rate, no weight decay); SFT's moments are not reused
      ({ step } = await runRlStage(run, { step, baseStep: sftEnd, resumed: inRl ? { opt, version: rlVersion } : null, parent: checkpointRef(runId, sftEnd) }));
    }
  } finally {
    await replicas?.close();
    await run.acting?.close();
    metrics.close();
    disposeModel(model);
    opt.dispose?.();
  }
  return { runId, step };
}

/** A step's metrics go to the clock too (its SFT and RL step times). */
function clockedEmit(emit: TrainRun['emit'], clock: RunClock | undefined, sftSteps: number): TrainRun['emit'] {
  return (s, m) => {
    clock?.record(s, sftSteps, m);
    emit(s, m);
  };
}

/** A resumed run's steps and evaluations before `step`, on the clock as done but untimed. */
function resumedOnClock(clock: RunClock | undefined, config: RunConfig, step: number, heldOut: number): void {
  clock?.skip('sft', Math.min(step, config.sft.steps));
  if (step > config.sft.steps) clock?.skip('rl', step - config.sft.steps);
  clock?.skip('eval', evalsBy(config, step) * heldOut * config.eval.samples);
}

/** Mean masked loss on the held-out windows (no gradients). */
async function validate(model: GPT, windows: readonly MaskedTokens[], blockSize: number, pad: number): Promise<Record<string, number>> {
  if (windows.length === 0) return {};
  let sum = 0;
  let n = 0;
  for (let i = 0; i < windows.length; i += 16) {
    const rows = windows.slice(i, i + 16);
    const b = makeBatch(rows, fitSeqLen(rows, blockSize), pad);
    const l = tf.tidy(() =>
      loss(model, tf.tensor2d(b.ids, [b.batchSize, b.seqLen], 'int32'), tf.tensor2d(b.targets, [b.batchSize, b.seqLen], 'int32'), tf.tensor2d(b.mask, [b.batchSize, b.seqLen], 'float32')),
    );
    sum += (await l.data())[0]! * b.lossTokens;
    n += b.lossTokens;
    l.dispose();
  }
  return n > 0 ? { 'val/loss': sum / n } : {};
}

/**
 * An RL-only run (`init.checkpoint`): the checkpoint's weights and tokenizer, no RFT data, tokenizer training
 * or SFT; RL steps are 1..M. Resuming continues from this run's own last checkpoint.
 */
async function runFromCheckpoint(inputs: RunInputs, resume: boolean, init: { dir: string; ref: string }): Promise<{ runId: string; step: number }> {
  const { ctx, runId, config } = inputs;
  const parent = init.ref;
  const resumed = resume ? await loadNewestVerifiedCheckpoint(ctx.home, runId, (m) => ctx.log(m)) : undefined;
  const last = resumed?.step;
  const loaded = resumed?.loaded ?? (await loadCheckpoint(init.dir));
  if (!loaded.tokenizer) throw new LabError('corrupt', `checkpoint ${last !== undefined ? checkpointRef(runId, last) : parent} has no tokenizer`);
  const step = last ?? 0;
  ctx.log(last !== undefined ? `resumed from step ${step}` : `RL from checkpoint ${parent}`);
  const metrics = openRunMetrics(ctx, runId, last ?? STARTS_OVER);
  const total = config.rl!.steps;
  const fraction = (s: number): number => stepFraction(s, total);
  if (step > 0) resumedOnClock(inputs.clock, config, step, inputs.heldOut.length);
  const run: TrainRun = { ...inputs, model: loaded.model, tok: loaded.tokenizer, emit: clockedEmit(metrics.emit, inputs.clock, 0), fraction };
  try {
    const resumedRl = last !== undefined ? { opt: loaded.optimizer, version: loaded.manifest.metrics['rl/policy_version'] ?? last } : null;
    const r = await runRlStage(run, { step, baseStep: 0, resumed: resumedRl, parent });
    return { runId, step: r.step };
  } finally {
    await run.acting?.close();
    metrics.close();
    disposeModel(loaded.model);
    loaded.optimizer?.dispose();
  }
}
