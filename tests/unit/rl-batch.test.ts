import { describe, expect, it } from 'vitest';
import { dapoFill, dropTooEasy, hasSignal, planDapo, planDupo, planGrpo, type RolloutGroup } from '../../main/lab/rl/batch';
import { createRng } from '../../main/lab/util/rng';

const g = (qaId: string, rewards: number[], answers?: number[]): RolloutGroup => (answers ? { qaId, rewards, answers } : { qaId, rewards });

describe('DUPO (a): dropTooEasy', () => {
  it('drops only the questions solved in every rollout', () => {
    const groups = [
      g('easy', [1, 1, 1, 1]),
      g('bad-format', [1, 1, 1, 0.9], [1, 1, 1, 1]), // every answer right, one format broken: still too easy
      g('bad-format-no-answers', [1, 1, 1, 0.9]), // without answer rewards the totals decide: kept
      g('hard', [0, 0, 0, 0]), // too hard is not dropped (WebSailor only filters the easy side)
      g('mixed', [1, 0, 0.1, 1]),
    ];
    const r = dropTooEasy(groups);
    expect(r.droppedIdx).toEqual([0, 1]);
    expect(r.keptIdx).toEqual([2, 3, 4]);
    expect(r.kept.map((x) => x.qaId)).toEqual(['bad-format-no-answers', 'hard', 'mixed']);
    expect(dropTooEasy([g('none', [])]).keptIdx).toEqual([0]);
  });
});

describe('DUPO (b): planDupo', () => {
  const batch = [g('a', [1, 0, 0, 0]), g('b', [0, 0, 0, 0]), g('c', [1, 1, 1, 1]), g('d', [0.1, 1, 0, 0])];

  it('keeps informative groups in place and fills zero-std slots with random copies of them', () => {
    const p = planDupo(batch, 4, createRng(7));
    expect(p.skip).toBe(false);
    expect(p.kept).toEqual([0, 3]);
    expect(p.dropped).toEqual([1, 2]);
    expect(p.slots).toHaveLength(4);
    expect(p.slots[0]).toBe(0);
    expect(p.slots[3]).toBe(3);
    // Two copies, drawn without replacement: one of each informative group.
    expect([...p.duplicated].sort()).toEqual([0, 3]);
    expect([p.slots[1], p.slots[2]]).toEqual(p.duplicated);
    expect(p.metrics).toEqual({ 'batch/zero_std_frac': 0.5, 'batch/duplicated_frac': 0.5 });
  });

  it('is seeded: same seed, same plan; other seeds give the other order', () => {
    expect(planDupo(batch, 4, createRng(7)).slots).toEqual(planDupo(batch, 4, createRng(7)).slots);
    const orders = new Set<string>();
    for (let s = 0; s < 20; s++) orders.add(planDupo(batch, 4, createRng(s)).duplicated.join());
    expect(orders).toEqual(new Set(['0,3', '3,0']));
  });

  it('spreads copies evenly and fills slots beyond the groups given', () => {
    const groups = [g('a', [1, 0]), g('b', [0, 0]), g('c', [0, 0]), g('d', [0, 1]), g('e', [0, 0]), g('f', [0, 0]), g('h', [1, 1]), g('i', [1, 1])];
    const p = planDupo(groups, 8, createRng(3));
    expect(p.duplicated).toHaveLength(6);
    expect(p.duplicated.filter((x) => x === 0)).toHaveLength(3);
    expect(p.duplicated.filter((x) => x === 3)).toHaveLength(3);
    expect(p.metrics['batch/zero_std_frac']).toBe(0.75);
    expect(p.metrics['batch/duplicated_frac']).toBe(0.75);
    const short = planDupo([g('a', [1, 0]), g('b', [0, 0])], 4, createRng(1));
    expect(short.slots).toEqual([0, 0, 0, 0]);
    expect(short.metrics).toEqual({ 'batch/zero_std_frac': 0.5, 'batch/duplicated_frac': 0.75 });
  });

  it('skips the update when every group is zero-std (or there are none)', () => {
    const p = planDupo([g('a', [1, 1]), g('b', [0, 0])], 2, createRng(1));
    expect(p).toMatchObject({ skip: true, reason: 'all_zero_std', slots: [], kept: [], dropped: [0, 1], duplicated: [] });
    expect(p.metrics).toEqual({ 'batch/zero_std_frac': 1, 'batch/duplicated_frac': 0 });
    expect(planDupo([], 2, createRng(1))).toMatchObject({ skip: true, reason: 'empty' });
    expect(() => planDupo(batch, 3, createRng(1))).toThrow(/4 groups for a batch of 3/);
  });
});

describe('DAPO dynamic sampling', () => {
  it('planDapo drops zero-std groups and keeps at most batchSize', () => {
    const p = planDapo([g('a', [1, 0]), g('b', [0, 0]), g('c', [0, 1]), g('d', [0.1, 0])], 2);
    expect(p).toMatchObject({ kept: [0, 2], slots: [0, 2], dropped: [1], unused: [3], full: true, need: 0, skip: false });
    const q = planDapo([g('a', [1, 0]), g('b', [0, 0])], 3);
    expect(q).toMatchObject({ full: false, need: 2 });
    expect(q.metrics['batch/zero_std_frac']).toBe(0.5);
  });

  /** A source that hands out prepared groups in order and records what was asked. */
  function source(all: RolloutGroup[]): { sample: (n: number) => Promise<RolloutGroup[]>; asked: number[] } {
    const asked: number[] = [];
    let i = 0;
    return {
      asked,
      sample: async (n) => {
        asked.push(n);
        const out = all.slice(i, i + n);
        i += n;
        return out;
      },
    };
  }

  it('refills until the batch is full, counting rounds and extra rollouts', async () => {
    const inf = (id: string): RolloutGroup => g(id, [1, 0, 0, 0]);
    const zero = (id: string): RolloutGroup => g(id, [0, 0, 0, 0]);
    // Round 1 (4 asked): 2 informative. Round 2 (2 asked): 1. Round 3 (1 asked): 1 -> full.
    const src = source([inf('q1'), zero('q2'), inf('q3'), zero('q4'), zero('q5'), inf('q6'), inf('q7'), inf('q8')]);
    const r = await dapoFill(src.sample, 4, 5);
    expect(src.asked).toEqual([4, 2, 1]);
    expect(r.groups.map((x) => x.qaId)).toEqual(['q1', 'q3', 'q6', 'q7']);
    expect(r).toMatchObject({ full: true, stop: 'full', rounds: 3, sampledGroups: 7, sampledRollouts: 28, extraGroups: 3, extraRollouts: 12, zeroStd: 3, unused: 0, skip: false });
    expect(r.metrics).toEqual({ 'batch/zero_std_frac': 3 / 7, 'batch/duplicated_frac': 0, 'batch/refill_rounds': 2 });
  });

  it('stops after maxRounds or when the source is used up, and says so', async () => {
    const zeros = Array.from({ length: 100 }, (_, i) => g(`z${i}`, [0, 0]));
    const r = await dapoFill(source(zeros).sample, 4, 3);
    expect(r).toMatchObject({ full: false, stop: 'max_rounds', rounds: 3, groups: [], skip: true, extraGroups: 8, extraRollouts: 16 });
    expect(r.metrics['batch/refill_rounds']).toBe(2);
    const s = await dapoFill(source([g('a', [1, 0]), g('b', [0, 0])]).sample, 4, 10);
    expect(s).toMatchObject({ full: false, stop: 'source_exhausted', rounds: 2, skip: false });
    expect(s.groups.map((x) => x.qaId)).toEqual(['a']);
  });

  it('oversamples later rounds on request and reports the unused surplus', async () => {
    const src = source([g('a', [1, 0]), g('b', [0, 0]), g('c', [0, 0]), g('d', [0, 0]), g('e', [1, 0]), g('f', [0, 1]), g('h', [0, 1]), g('i', [1, 0])]);
    const r = await dapoFill(src.sample, 4, 4, { oversample: 1.5 });
    expect(src.asked).toEqual([4, 5]); // need 3 -> ceil(4.5)
    expect(r).toMatchObject({ full: true, rounds: 2, unused: 1 });
    await expect(dapoFill(src.sample, 4, 0)).rejects.toThrow(/maxRounds/);
  });
});

describe('GRPO dynamic filtering', () => {
  it('drops zero-std groups without refill or copies', () => {
    const p = planGrpo([g('a', [1, 0]), g('b', [1, 1]), g('c', [0, 0.1])]);
    expect(p).toMatchObject({ slots: [0, 2], dropped: [1], duplicated: [], skip: false });
    expect(p.metrics).toEqual({ 'batch/zero_std_frac': 1 / 3, 'batch/duplicated_frac': 0 });
    expect(planGrpo([g('a', [0, 0])])).toMatchObject({ skip: true, reason: 'all_zero_std' });
  });
});

describe('signal is a difference in the answer reward (issue 45, part 2, point 8)', () => {
  // R = 0.1 format + 0.9 answer. 'format-only': every answer wrong, one format broken (total std 0.05): the
  // third walk saw DUPO keep such groups and copy one. 'answers-differ': one right answer.
  const formatOnly = g('format-only', [0.1, 0.1, 0, 0.1], [0, 0, 0, 0]);
  const answersDiffer = g('answers-differ', [1, 0.1, 0.1, 0], [1, 0, 0, 0]);
  const allWrong = g('all-wrong', [0.1, 0.1, 0.1, 0.1], [0, 0, 0, 0]);

  it('counts a group whose answers differ, not one whose formats alone differ', () => {
    expect([formatOnly, answersDiffer, allWrong].map((x) => hasSignal(x))).toEqual([false, true, false]);
    // Without answer rewards the totals decide, as before.
    expect(hasSignal(g('totals', [0.1, 0.1, 0, 0.1]))).toBe(true);
  });

  it('DUPO gives the format-only group\'s slot to a copy of the group whose answers differ', () => {
    const p = planDupo([formatOnly, answersDiffer, allWrong], 3, createRng(1));
    expect(p.kept).toEqual([1]);
    expect(p.dropped).toEqual([0, 2]);
    expect(p.slots).toEqual([1, 1, 1]);
    expect(p.duplicated).toEqual([1, 1]);
    expect(p.metrics['batch/zero_std_frac']).toBeCloseTo(2 / 3, 12);
  });

  it('GRPO and DAPO drop it; a batch of format-only groups is skipped', () => {
    expect(planGrpo([formatOnly, answersDiffer]).kept).toEqual([1]);
    expect(planDapo([formatOnly, answersDiffer], 2).kept).toEqual([1]);
    expect(planDupo([formatOnly, allWrong], 2, createRng(1))).toMatchObject({ skip: true, reason: 'all_zero_std', slots: [] });
  });
});

describe('credit per turn (turnSignal)', () => {
  it('a group whose rewards are all equal has signal when some turn advantage is not 0, and is counted apart', () => {
    const groups: RolloutGroup[] = [{ qaId: 'flat-turns', rewards: [0, 0, 0, 0], turnSignal: true }, { qaId: 'flat', rewards: [0, 0, 0, 0], turnSignal: false }, { qaId: 'mixed', rewards: [1, 0, 0, 0], turnSignal: true }];
    const p = planDupo(groups, 3, createRng(1));
    expect(p.kept).toEqual([0, 2]);
    expect(p.dropped).toEqual([1]);
    expect(p.metrics['batch/turn_signal_frac']).toBeCloseTo(1 / 3, 9);
    expect(planGrpo(groups).slots).toEqual([0, 2]);
    // Without credit per turn every group is judged by its rewards alone, and the metric is absent.
    expect(planGrpo(groups.map(({ qaId, rewards }) => ({ qaId, rewards }))).slots).toEqual([2]);
    expect(planGrpo([g('a', [1, 0])]).metrics).not.toHaveProperty(['batch/turn_signal_frac']);
  });
});
