// The relabeling stage of the `train` job (DAgger, Ross, Gordon and Bagnell 2011; run config `relabel`), after SFT
// and before RL, readable top to bottom:
//   1. questions  each round a fresh seeded draw of `questions` training questions (of at least `minEdges` edges)
//   2. rollouts   the current policy on them, every episode's turns decoded in one batch (the run's acting threads)
//   3. labels     every state visited labelled with the expert's next turn (relabel-data.ts); kept where the expert
//                 reaches the answer from it; the round's agreement by turn kind as metrics
//   4. train      `steps` SFT steps at a constant rate (after a short warm-up) on batches that draw a `mix` share from the kept states of
//                 every round so far (the aggregated data set), the rest from the RFT rows
//   5. record     data/relabel-round-N.jsonl (the labelled trajectories: the expert's label beside each action),
//                 the round's metrics, a checkpoint; after the last round, the held-out evaluation
// Steps continue the run's counter after SFT. Resuming at a round's checkpoint rebuilds the earlier rounds' rows
// from their files. `source: 'expert'` is the control: the expert's own episodes on the same questions.
import type { QA, Trajectory } from '../../formats';
import type { AgentStep } from '../../agent/react';
import { rolloutDataset } from '../../agent/rollout';
import { filterTrajectories } from '../../agent/rft';
import { readTrajectories } from '../../agent/data';
import type { PolicyFactory } from '../../agent/policies';
import { writeTrajectorySet } from '../../store/traj-set';
import { createRng, seedFrom } from '../../util/rng';
import { buildMaskedTokens, fitSeqLen, makeBatch, type MaskedTokens } from '../../model/mask';
import { createOptimizer, resolveTrainConfig, sftMetrics, trainStep } from '../../model/train';
import type { AdamW } from '../../model/optim';
import type { Replicas } from '../../model/replicas';
import { saveCheckpoint } from '../../model/checkpoint';
import { checkpointDir, checkpointRef, relabelFile } from '../../runs/layout';
import { throwIfCancelled } from '../../jobs/context';
import type { RelabelConfig } from '../../contract/run-config';
import { RFT_THOUGHTS } from '../policy/rft-expert';
import { checkpointPolicy, EPISODES_IN_FLIGHT, TURN_TOKENS } from '../policy/policy';
import { evaluatePolicy, runActing, type TrainRun } from '../policy/run';
import { policyView, turnWindows } from '../policy/view';
import { labelRows, labelTrajectory, roundMetrics } from './relabel-data';

export interface RelabelStart {
  step: number;
  /** The RFT rows SFT trained on. */
  rftRows: readonly MaskedTokens[];
  /** The questions of the SFT set and of the RL set (data.rlDatasetId, else the SFT set's). */
  trainQas: readonly QA[];
  /** The optimiser of a checkpoint resumed inside this stage; otherwise the stage makes a fresh one. */
  opt?: AdamW;
  replicas?: Replicas;
  /** The page title of a node: the expert searches the question's anchors by name, as in the RFT data. */
  anchorName: (id: string) => string | undefined;
}

/** A fresh AdamW's first steps move every weight by about the rate whatever its gradient: ramp up over these. */
const WARMUP_STEPS = 30;

/** Round r's questions: a seeded draw from those of at least `minEdges` edges. Pure. */
export function roundQuestions(qas: readonly QA[], cfg: Pick<RelabelConfig, 'questions' | 'minEdges'>, runId: string, round: number): QA[] {
  const pool = qas.filter((q) => q.subgraph.edges.length >= cfg.minEdges);
  return createRng(seedFrom(`${runId}/relabel/${round}`)).shuffle([...pool]).slice(0, cfg.questions);
}

export async function runRelabelStage(run: TrainRun, start: RelabelStart): Promise<number> {
  const { ctx, runId, config, model, tok } = run;
  const cfg = config.relabel!;
  const sftSteps = config.sft.steps;
  const blockSize = model.config.blockSize;
  const pad = tok.special('<|pad|>');
  const trainCfg = resolveTrainConfig({
    lr: cfg.lr, minLr: cfg.lr, warmupSteps: WARMUP_STEPS, decaySteps: 0, maxSteps: cfg.rounds * cfg.steps,
    weightDecay: config.sft.weightDecay, gradClip: config.sft.gradClip, batchSize: config.sft.batchSize, seqLen: blockSize, seed: config.rng,
  });
  const opt = start.opt ?? createOptimizer(model, trainCfg);
  const questionOf = new Map([...run.rlQas, ...start.trainQas].map((q) => [q.id, q.question]));
  const pool = cfg.from === 'rl' ? run.rlQas : start.trainQas;
  const rows: MaskedTokens[] = [];
  let step = start.step;
  const done = Math.floor((step - sftSteps) / cfg.steps);
  for (let r = 0; r < done; r++) rows.push(...roundRows(readTrajectories(relabelFile(ctx.home, runId, r + 1))));
  try {
    for (let r = done; r < cfg.rounds; r++) {
      const label = `relabel round ${r + 1} of ${cfg.rounds}`;
      const t0 = performance.now();
      const qas = roundQuestions(pool, cfg, runId, r);
      const trajs = cfg.source === 'expert' ? await expertEpisodes(qas, label) : await labelled(qas, label);
      writeTrajectorySet(relabelFile(ctx.home, runId, r + 1), { kind: 'relabel', run: runId, round: r + 1, step, source: cfg.source }, trajs);
      const fresh = roundRows(trajs);
      rows.push(...fresh);
      const roundM: Record<string, number> = { ...(cfg.source === 'policy' ? roundMetrics(trajs) : {}), 'relabel/round': r + 1, 'relabel/rows_new': fresh.length, 'relabel/rows': rows.length, 'timing/relabel_s': (performance.now() - t0) / 1000 };
      ctx.log(`${label}: ${JSON.stringify(roundM)}`);
      const rng = createRng(seedFrom(`${runId}/relabel/batches/${r}`));
      for (let k = 0; k < cfg.steps; k++) {
        throwIfCancelled(ctx);
        const t1 = performance.now();
        const draw = (): MaskedTokens => (rows.length && rng.next() < cfg.mix ? rows[rng.int(rows.length)]! : start.rftRows[rng.int(start.rftRows.length)]!);
        const picks = Array.from({ length: config.sft.batchSize }, draw);
        const res = await trainStep(model, opt, makeBatch(picks, fitSeqLen(picks, blockSize), pad), trainCfg, start.replicas);
        step++;
        const seconds = (performance.now() - t1) / 1000;
        const m: Record<string, number> = { ...sftMetrics(res, seconds), 'timing/update_s': seconds, ...(k === 0 ? roundM : {}) };
        const last = k === cfg.steps - 1;
        if (last && r === cfg.rounds - 1) Object.assign(m, await evaluatePolicy(run, step));
        run.emit(step, m);
        ctx.progress({ fraction: run.fraction(step), message: `${label}: step ${k + 1} of ${cfg.steps}, loss ${res.loss.toFixed(3)}` });
      }
      await saveCheckpoint(
        checkpointDir(ctx.home, runId, step),
        { model, step, optimizer: opt, tokenizer: tok, train: trainCfg, lineage: { run: runId, dataset: config.data.datasetId, stage: 'relabel', parent: sftSteps > 0 ? checkpointRef(runId, sftSteps) : (config.init?.checkpoint ?? null) }, metrics: roundM },
        { overwrite: true },
      );
    }
  } finally {
    opt.dispose();
  }
  return step;

  /** The kept states' rows of labelled trajectories, or every turn of the expert's kept episodes (the control). */
  function roundRows(trajs: readonly Trajectory[]): MaskedTokens[] {
    if (cfg.source === 'policy') return labelRows(tok, trajs, (id) => questionOf.get(id) ?? '', blockSize, cfg.mistakes);
    return trajs.flatMap((t) => {
      const v = policyView(questionOf.get(t.qa_id) ?? '', t.steps as AgentStep[]);
      return turnWindows(buildMaskedTokens(tok, v.text, v.spans), blockSize, TURN_TOKENS);
    });
  }

  /** The policy's episodes on the round's questions, every state labelled. */
  async function labelled(qas: readonly QA[], label: string): Promise<Trajectory[]> {
    const decoder = await runActing(run);
    const spec = `ckpt:${runId}/${step}`;
    const factory: PolicyFactory = {
      spec, kind: 'ckpt', inFlight: EPISODES_IN_FLIGHT * decoder.size, // a full batch for each thread
      forQA: () => checkpointPolicy(model, tok, { name: spec, temperature: cfg.temperature, maxTurnTokens: TURN_TOKENS, decoder }),
    };
    const trajs = await rolloutDataset(qas, factory, run.tools, { n: 1, seed: seedFrom(`${runId}/relabel/${step}`), limits: run.limits }, (n, total) =>
      ctx.progress({ fraction: run.fraction(step), message: `${label}: the policy's episodes ${n} of ${total}` }),
    );
    const c = { expert: expertOptions(), thought: RFT_THOUGHTS[config.rft.style], tools: run.tools, maxToolCalls: run.limits.maxToolCalls };
    const byId = new Map(qas.map((q) => [q.id, q]));
    const out: Trajectory[] = [];
    for (const t of trajs) {
      out.push(await labelTrajectory(t, byId.get(t.qa_id)!, c));
      ctx.progress({ fraction: run.fraction(step), message: `${label}: labelling states, episode ${out.length} of ${trajs.length}` });
    }
    return out;
  }

  /** The control: the expert's own correct episodes on the round's questions (the RFT filters). */
  async function expertEpisodes(qas: readonly QA[], label: string): Promise<Trajectory[]> {
    const all = await rolloutDataset(qas, run.expert!, run.tools, { n: config.rft.attempts, seed: seedFrom(`${runId}/relabel/${step}`), limits: run.limits }, (n, total) =>
      ctx.progress({ fraction: run.fraction(step), message: `${label}: the expert's episodes ${n} of ${total}` }),
    );
    return filterTrajectories(all, { attempts: config.rft.attempts, minToolCalls: config.rft.minToolCalls, maxTokens: config.rft.maxTokens }).kept;
  }

  /** The expert as the RFT data's: compact unless the style is full, anchors searched by name. */
  function expertOptions(): { compact: boolean; freshForcedAnswer: boolean; anchorName: (id: string) => string | undefined } {
    return { compact: config.rft.style !== 'full', freshForcedAnswer: true, anchorName: start.anchorName };
  }
}
