// What a run's evaluation and every later evaluation of its checkpoints share, so that a checkpoint scores the
// same pass@1 in the run's own evaluation and in the `compare` job: the per-turn token cap, the limits of an
// episode and the seed each attempt's stream derives from. Light: no model code (the rollout job imports it).
import type { RunConfig } from '../../contract/run-config';
import { seedFrom } from '../../util/rng';

/**
 * Episodes a checkpoint policy plays at once, their turns decoded as one batch (model/batch-decoder.ts); more
 * rows a step cost little more than one on a CPU (bench/speed/rollouts.ts measured it: docs/performance.md).
 */
export const EPISODES_IN_FLIGHT = 64;

/** One turn (think + action) of a trained policy, at most, in tokens. */
export const TURN_TOKENS = 96;

/** The limits of an evaluation (and RL) episode of a run's policy: the run's tool calls; a turn's text cap. */
export function runLimits(config: Pick<RunConfig, 'env'>): { maxToolCalls: number; maxNewTokens: number } {
  return { maxToolCalls: config.env.maxToolCalls, maxNewTokens: TURN_TOKENS * 4 };
}

/** The rollout seed of an evaluation with run seed `rng`: attempt i of question q draws from `<seed>/<q>/<i>`. */
export function evalSeed(rng: number): number {
  return seedFrom(`eval/${rng}`);
}
