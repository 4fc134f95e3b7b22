// The RL stage's headroom, before its first update (issue #31): the starting policy's pass@k, k = 1, 2, 4, ... G,
// on a seeded sample of the RL questions and the first held-out ones, G rollouts each at the RL temperature.
// RL with verifiable rewards reweights what the policy already samples, so pass@G is the room it has for the
// SAMPLED pass@1 (docs/learning.md §4b), not a bound on the evaluation's greedy figure: the same questions are
// also played once under the evaluation's own protocol, and both go in the sentence and RL step 1's metrics.
import { evaluationMetric, headroomMetrics, type HeadroomSet } from '../../contract/headroom';
import { headroomSentence, passAtKCurve } from '../../contract/stats';
import type { QA } from '../../formats';
import { createRng, seedFrom } from '../../util/rng';
import { rolloutGroups } from './rl-rollouts';
import { evaluationPassAt1 } from '../policy/run';
import { policyName, progress, type RlStage } from './rl-stage';
import { isCorrect } from '../../contract/correct';

/** The questions each curve is measured on: a seeded sample of the RL set, the first of the held-out set. */
export function headroomQuestions(runId: string, rlQas: readonly QA[], heldOut: readonly QA[], n: number): Record<HeadroomSet, QA[]> {
  return {
    rl: createRng(seedFrom(`${runId}/rl/headroom`)).shuffle([...rlQas]).slice(0, n),
    heldout: heldOut.slice(0, n),
  };
}

/** The curves as metrics (none when `rl.headroomQuestions` is 0 or the stage resumes past its start). */
export async function measureHeadroom(stage: RlStage): Promise<Record<string, number>> {
  const n = stage.rl.headroomQuestions;
  if (n === 0 || stage.step !== stage.baseStep) return {};
  const { runId, rlQas, heldOut, ctx } = stage.run;
  const sets = headroomQuestions(runId, rlQas, heldOut, n);
  const out: Record<string, number> = {};
  const t0 = performance.now();
  for (const set of ['rl', 'heldout'] as const) {
    const qs = sets[set];
    if (qs.length === 0) continue;
    const groups = await rolloutGroups(stage, qs, qs.map((q) => `headroom/${set}/${q.id}`), seedFrom(`${runId}/rl/headroom/${set}`), (done, total) =>
      progress(stage, stage.step, `headroom before RL (${set === 'rl' ? 'RL' : 'held-out'} questions): rollouts ${done} of ${total}`),
    );
    const curve = passAtKCurve(groups.map((g) => ({ n: g.rollouts.length, correct: g.rollouts.filter((r) => isCorrect(r.traj.reward)).length })));
    const evaluated = await evaluationPassAt1(stage.run, qs, policyName(stage, stage.version));
    const right = groups.reduce((a, g) => a + g.rollouts.filter((r) => isCorrect(r.traj.reward)).length, 0);
    ctx.log(
      `headroom on ${qs.length} ${set === 'rl' ? 'RL' : 'held-out'} questions × ${stage.rl.groupSize} at temperature ${stage.rl.temperature} ` +
        `(${right} of ${qs.length * stage.rl.groupSize} samples right): ${curve.map((p) => `pass@${p.k} ${p.passAtK.toFixed(3)}`).join(', ')}; ${headroomSentence(curve, evaluated)}`,
    );
    Object.assign(out, headroomMetrics(set, curve), { [evaluationMetric(set)]: evaluated });
  }
  out['timing/headroom_s'] = (performance.now() - t0) / 1000;
  return out;
}
