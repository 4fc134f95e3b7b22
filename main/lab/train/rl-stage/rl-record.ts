// What an RL step leaves behind: its metrics record (rl/metrics, timing, the policy version; the held-out
// evaluation every evalEvery), rollouts/step-N.jsonl (the plan, then every trajectory with its group,
// advantage and sampled tokens: what the group view reads, docs/formats.md), and a checkpoint every
// checkpointEvery and at the end.
import type { PgStats } from '../../rl/loss';
import { rlMetrics } from '../../rl/metrics';
import { hasSignal } from '../../rl/batch';
import { turnRewardMetrics } from '../policy/turn-rewards';
import { saveCheckpoint } from '../../model/checkpoint';
import { writeTrajectorySet } from '../../store/traj-set';
import { checkpointDir, rolloutsFile } from '../../runs/layout';
import { evaluatePolicy } from '../policy/run';
import { policyName, progress, type RlStage } from './rl-stage';
import type { Group } from './rl-rollouts';
import type { StepPlan } from './rl-plan';

/** One RL step as it happened. */
export interface StepOutcome {
  /** RL step (1-based) and global step. */
  k: number;
  s: number;
  label: string;
  /** The policy version the step's rollouts were planned under. */
  startVersion: number;
  groups: Group[];
  plan: StepPlan;
  /** Async mode's rollout/staleness_max and rollout/stale_dropped. */
  asyncMetrics: Record<string, number> | null;
  /** The update's loss statistics; null when the step made none. */
  trained: { pg: PgStats; update: { gradNorm: number; lr: number } } | null;
  rolloutSeconds: number;
  updateSeconds: number;
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/**
 * Records the step: metrics, rollouts file, progress, checkpoint. `first`: metrics only RL step 1 carries;
 * `every`: the question pool's metrics after this step (the data-policy loop's counts).
 */
export async function recordStep(stage: RlStage, o: StepOutcome, first: Record<string, number>, every: Record<string, number> = {}): Promise<void> {
  const { rl } = stage;
  const { ctx, runId, config, model, tok } = stage.run;
  const { k, s, plan } = o;
  const skipped = o.trained === null;
  const all = o.groups.flatMap((g) => g.rollouts);
  const sampledTokens = all.reduce((a, r) => a + (r.turns.length ? r.turns.reduce((b, t) => b + t.tokens.length, 0) : r.traj.tokens.generated), 0);
  const m: Record<string, number> = {
    ...rlMetrics({
      rollouts: all.map((r) => r.traj),
      pg: o.trained?.pg ?? null,
      update: o.trained?.update ?? null,
      plan: { metrics: plan.metrics, skip: skipped },
      async: o.asyncMetrics ? { metrics: o.asyncMetrics } : null,
    }),
    'timing/rollout_s': o.rolloutSeconds,
    'timing/update_s': o.updateSeconds,
    'perf/tokens_per_s': sampledTokens / Math.max(1e-9, o.rolloutSeconds + o.updateSeconds),
    'rl/policy_version': stage.version,
    ...turnRewardMetrics(o.groups.flatMap((g) => g.turnRewards ?? [])),
    ...(k === 1 ? first : {}),
    ...every,
  };
  if (k % rl.evalEvery === 0 || s === stage.lastStep) {
    // Only the evaluation's own names: reward/* and rollout/* of this step are the training rollouts'.
    for (const [key, v] of Object.entries(await evaluatePolicy(stage.run, s))) if (key.startsWith('eval/') || key === 'timing/eval_s') m[key] = v;
  }
  writeRollouts(stage, o, m);
  stage.run.emit(s, m);
  const evalNote = m['eval/pass@1'] !== undefined ? `, held-out pass@1 ${m['eval/pass@1'].toFixed(3)}` : '';
  progress(stage, stage.step, `${o.label}: reward ${(m['reward/mean'] ?? 0).toFixed(3)}${skipped ? ', no update (no group with signal)' : ''}${evalNote}`, k, rl.steps);
  if (k % rl.checkpointEvery === 0 || s === stage.lastStep) {
    await saveCheckpoint(
      checkpointDir(ctx.home, runId, s),
      { model, step: s, optimizer: stage.opt, tokenizer: tok, train: stage.trainCfg, lineage: { run: runId, dataset: config.data.datasetId, stage: 'rl', parent: stage.parent }, metrics: m },
      { overwrite: true },
    );
  }
}

/** runs/<id>/rollouts/step-N.jsonl: the header (plan, metrics), then every rollout of the step. */
function writeRollouts(stage: RlStage, o: StepOutcome, summary: Record<string, number>): void {
  const { groups, plan } = o;
  const copies = groups.map((_, i) => plan.slots.filter((x) => x === i).length);
  const header = {
    kind: 'rl',
    run: stage.run.runId,
    step: o.s,
    policy_version: o.startVersion,
    plan: {
      method: stage.rl.algorithm,
      groups: groups.map((g, i) => ({
        group: g.id,
        qa_id: g.qaId,
        rewards: g.rewards,
        mean: round4(g.adv.mean),
        std: round4(g.adv.std),
        advantages: g.adv.advantages.map(round4),
        status: copies[i] === 0 ? 'dropped' : copies[i]! > 1 ? 'duplicated' : 'kept',
        copies: copies[i],
      })),
      zero_std: groups.filter((g) => !hasSignal(g)).length,
      duplicated: copies.reduce((a, c) => a + Math.max(0, c - 1), 0),
      refilled: plan.refilled,
      skip: o.trained === null,
    },
    summary,
  };
  const lines = groups.flatMap((g) =>
    g.rollouts.map((r, i) => ({
      ...r.traj,
      id: `${g.id}/${i}`,
      policy: policyName(stage, r.version),
      // Each step's sampled token ids and their log-probs (4 decimals), in step order.
      steps: r.traj.steps.map((st, j) => (r.turns[j] ? { ...st, gen: { ids: r.turns[j]!.tokens, logprobs: r.turns[j]!.logProbs.map(round4) } } : st)),
      group: g.id,
      advantage: round4(g.adv.advantages[i]!),
      // Credit per turn / turn rewards (train/policy/turn-rewards.ts), when on: one per step.
      ...(g.turnRewards ? { turn_rewards: g.turnRewards[i]!.map((t) => round4(t.reward)) } : {}),
      ...(g.turnAdvantages ? { turn_advantages: g.turnAdvantages[i]!.map(round4) } : {}),
      weight: g.adv.weights[i],
      policy_version: r.version,
      staleness: o.startVersion - r.version,
    })),
  );
  writeTrajectorySet(rolloutsFile(stage.run.ctx.home, stage.run.runId, o.s), header, lines);
}
