// The RL stage's headroom, before its first update (issue #31): the starting policy's pass@k, k = 1, 2, 4, ... G,
// on a seeded sample of the RL questions and the first held-out ones, G rollouts each at the RL temperature.
// RL with verifiable rewards reweights what the policy already samples, so pass@G bounds what it can lift pass@1
// to (docs/learning.md §4b); the log says so in a sentence and RL step 1's metrics carry the curves.
import { headroomMetrics, type HeadroomSet } from '../../contract/headroom';
import { headroomSentence, passAtKCurve } from '../../contract/stats';
import type { QA } from '../../formats';
import { createRng, seedFrom } from '../../util/rng';
import { rolloutGroups } from './rl-rollouts';
import { progress, type RlStage } from './rl-stage';
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
    ctx.log(`headroom on ${qs.length} ${set === 'rl' ? 'RL' : 'held-out'} questions × ${stage.rl.groupSize}: ${curve.map((p) => `pass@${p.k} ${p.passAtK.toFixed(3)}`).join(', ')}; ${headroomSentence(curve)}`);
    Object.assign(out, headroomMetrics(set, curve));
  }
  out['timing/headroom_s'] = (performance.now() - t0) / 1000;
  return out;
}
