// Async RL with many rollouts in flight (train/rl-stage/async-rollouts.ts): a learner whose updates are slow
// beside its rollouts takes its steps' groups while 32 rollouts play; no taken group is ever more than
// maxStaleness versions old, no rollout starts further ahead than its group could be used, and so, while
// rollouts keep pace, none is played for nothing (dropped as stale). The clock is the event loop: rollouts and
// updates each take a set number of its turns, so the runs are the same every time, on any machine.
import { describe, expect, it } from 'vitest';
import { AsyncRollouts } from '../../main/lab/train/rl-stage/async-rollouts';

/** Turns of the event loop. */
async function ticks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

interface Case {
  name: string;
  maxStaleness: number;
  /** Groups each step takes (a DAPO-like step takes more than a batch when groups lack signal). */
  takes: number[];
  groupsPerStep: number;
  /** Event-loop turns a rollout takes: sample -> turns. */
  rolloutTicks: (g: number, sample: number) => number;
  updateTicks: number;
}

const G = 4;
const IN_FLIGHT = 32; // four steps' worth of rollouts at 2 groups a step

async function learn(c: Case): Promise<{ staleness: number[][]; metrics: Record<string, number>[]; starts: { g: number; version: number }[] }> {
  let version = 0;
  const starts: { g: number; version: number }[] = [];
  const rollouts = new AsyncRollouts({
    groupSize: G, inFlight: IN_FLIGHT, maxStaleness: c.maxStaleness, groupsPerStep: c.groupsPerStep,
    questionAt: (i) => `q${i}`, firstGroup: 0, version: () => version,
    run: async (_qa, groupId, sample) => {
      const v = version;
      const g = Number(groupId.slice(1));
      starts.push({ g, version: v });
      await ticks(c.rolloutTicks(g, sample));
      return { version: v };
    },
    makeGroup: (id, qa, rs) => ({ id, qaId: qa, version: Math.min(...rs.map((r) => r.version)) }),
  });
  const staleness: number[][] = [];
  const metrics: Record<string, number>[] = [];
  for (const [step, take] of c.takes.entries()) {
    const got = await rollouts.next(version, step + 1, (taken) => taken.length >= take, () => {});
    staleness.push(got.groups.map((g) => version - g.version));
    metrics.push(got.metrics);
    await ticks(c.updateTicks); // the update: rollouts keep playing meanwhile
    version++;
  }
  await rollouts.stop();
  return { staleness, metrics, starts };
}

const even = (): number => 3;
const steady: Case[] = [
  { name: 'two groups a step, staleness 1', maxStaleness: 1, takes: Array(12).fill(2), groupsPerStep: 2, rolloutTicks: even, updateTicks: 40 },
  { name: 'two groups a step, on-policy (staleness 0)', maxStaleness: 0, takes: Array(8).fill(2), groupsPerStep: 2, rolloutTicks: even, updateTicks: 40 },
  { name: 'two groups a step, staleness 2', maxStaleness: 2, takes: Array(10).fill(2), groupsPerStep: 2, rolloutTicks: even, updateTicks: 60 },
];

describe('async rollouts with many in flight', () => {
  it.each(steady)('$name: staleness within the bound, no rollout ahead of its use, none dropped', async (c) => {
    const { staleness, metrics, starts } = await learn(c);
    expect(staleness.flat().length).toBe(c.takes.reduce((a, b) => a + b, 0));
    for (const [k, s] of staleness.entries()) {
      expect(Math.max(...s), `step ${k + 1}`).toBeLessThanOrEqual(c.maxStaleness);
      expect(metrics[k]!['rollout/staleness_max']).toBe(Math.max(...s));
      expect(metrics[k]!['rollout/staleness_mean']).toBeCloseTo(s.reduce((a, b) => a + b, 0) / s.length, 12);
      expect(metrics[k]!['rollout/in_flight']).toBeLessThanOrEqual(IN_FLIGHT);
    }
    // Rollouts keep pace, so none played for nothing: every group started was taken while fresh.
    expect(metrics.reduce((a, m) => a + m['rollout/stale_dropped']!, 0)).toBe(0);
    // A rollout starting under version v belongs to a group within (maxStaleness + 1) steps of those taken before v.
    const takenBefore = (v: number): number => c.takes.slice(0, v).reduce((a, b) => a + b, 0);
    for (const s of starts) expect(s.g, `group ${s.g} started under version ${s.version}`).toBeLessThan(takenBefore(s.version) + (c.maxStaleness + 1) * c.groupsPerStep);
    // The bound is what holds them back, not a lack of rollouts: its whole reach was in play at once.
    expect(Math.max(...starts.map((s) => s.g))).toBe(takenBefore(c.takes.length - 1) + (c.maxStaleness + 1) * c.groupsPerStep - 1);
  });

  it('steps that take one to three groups (DAPO-like, at most three): never waits forever, nothing staler than the bound', async () => {
    const c: Case = { name: 'dapo', maxStaleness: 1, takes: [1, 3, 2, 3, 1, 1, 3, 2, 2, 3], groupsPerStep: 3, rolloutTicks: even, updateTicks: 40 };
    const { staleness } = await learn(c);
    expect(staleness.map((s) => s.length)).toEqual(c.takes);
    expect(Math.max(...staleness.flat())).toBeLessThanOrEqual(1);
  });

  it('a long tail (one rollout in seven plays 25 times longer) still trains on nothing staler than the bound', async () => {
    const c: Case = { name: 'tail', maxStaleness: 1, takes: Array(12).fill(2), groupsPerStep: 2, rolloutTicks: (g, s) => ((g * G + s) % 7 === 0 ? 75 : 3), updateTicks: 20 };
    const { staleness } = await learn(c);
    expect(Math.max(...staleness.flat())).toBeLessThanOrEqual(1);
  });
});
