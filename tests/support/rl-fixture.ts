// RL step files in the documented layout (runs/<id>/rollouts/step-N.jsonl, see main/lab/runs/rollouts.ts),
// made from a few rewards per question: for the reader's tests and for trying the group view by hand.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RlGroupStatus } from '../../main/lab/contract';
import type { Trajectory } from '../../main/lab/formats';

export interface FixtureGroup {
  qaId: string;
  /** Answer reward of each rollout (0 or 1); the total is 0.1 format + 0.9 answer, format 1. */
  answers: number[];
  status?: RlGroupStatus;
  copies?: number;
}

const meanStd = (xs: number[]): { mean: number; std: number } => {
  const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
  return { mean, std: Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length) };
};

/** The header and trajectory lines of one RL step (GRPO advantages, DUPO statuses unless given). */
export function rlStepLines(runId: string, step: number, groups: FixtureGroup[], opts: { method?: string; policyVersion?: number; answer?: string } = {}): object[] {
  const planned = groups.map((g) => {
    const rewards = g.answers.map((a) => 0.1 + 0.9 * a);
    const { mean, std } = meanStd(rewards);
    const advantages = rewards.map((r) => (std > 1e-9 ? (r - mean) / std : 0));
    const status: RlGroupStatus = g.status ?? (std > 1e-9 ? 'kept' : 'dropped');
    return { group: `${step}/${g.qaId}`, qa_id: g.qaId, rewards, mean, std, advantages, status, copies: g.copies ?? (status === 'dropped' ? 0 : 1) };
  });
  const all = planned.flatMap((g) => g.rewards);
  const header = {
    format: 'sailor.traj/1',
    kind: 'rl',
    run: runId,
    step,
    policy_version: opts.policyVersion ?? step,
    plan: {
      method: opts.method ?? 'dupo',
      groups: planned,
      zero_std: planned.filter((g) => g.std <= 1e-9).length,
      duplicated: planned.filter((g) => g.status === 'duplicated').reduce((a, g) => a + g.copies - 1, 0),
      refilled: 0,
      skip: planned.every((g) => g.std <= 1e-9),
    },
    summary: { 'reward/mean': meanStd(all).mean, 'reward/std': meanStd(all).std, 'batch/zero_std_frac': planned.filter((g) => g.std <= 1e-9).length / planned.length },
  };
  const trajectories: Trajectory[] = planned.flatMap((g, gi) =>
    g.rewards.map((reward, i): Trajectory => {
      const answer = groups[gi]!.answers[i]!;
      return {
        id: `${step}/${g.qa_id}/${i}`,
        qa_id: g.qa_id,
        policy: `ckpt:${runId}/${step}`,
        steps: [
          { think: 'look it up', action: { name: 'search', arguments: { query: ['who founded it'] } }, observation: 'a result' },
          { think: 'answer', action: { name: 'answer', arguments: { answer: answer ? (opts.answer ?? 'FormFactor') : 'Nobody' } } },
        ],
        prediction: answer ? (opts.answer ?? 'FormFactor') : 'Nobody',
        termination: 'answer',
        reward: { format: 1, answer, total: reward },
        tool_calls: 1,
        tokens: { generated: 20 + i, observation: 5 },
        group: g.group,
        advantage: g.advantages[i],
        policy_version: step - (i % 2),
        staleness: i % 2,
      };
    }),
  );
  return [header, ...trajectories];
}

export function writeRlStep(file: string, lines: object[]): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}
