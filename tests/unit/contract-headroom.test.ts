// The headroom curve as run metrics and from a comparison's samples (contract/headroom.ts); the estimator
// itself is held by contract-stats.test.ts (Chen et al. 2021, hand-checked).
import { describe, expect, it } from 'vitest';
import { evaluationFromMetrics, evaluationMetric, headroomFromMetrics, headroomMetrics, headroomOfResults } from '../../main/lab/contract/headroom';
import { passAtKCurve } from '../../main/lab/contract/stats';
import { headroomQuestions } from '../../main/lab/train/rl-stage/rl-headroom';
import type { QA } from '../../main/lab/formats';

describe('the headroom curve', () => {
  it('goes into metrics by set and k and comes back sorted by k, other metrics ignored', () => {
    const m: Record<string, number> = { ...headroomMetrics('heldout', [{ k: 1, passAtK: 0.25 }, { k: 2, passAtK: 0.4 }]), 'headroom/rl/pass@4': 0.6, 'headroom/rl/pass@1': 0.3, 'eval/pass@1': 0.2, 'headroom/rl/pass@x': 1 };
    expect(m['headroom/heldout/pass@2']).toBe(0.4);
    expect(headroomFromMetrics(m)).toEqual({
      heldout: [{ k: 1, passAtK: 0.25 }, { k: 2, passAtK: 0.4 }],
      rl: [{ k: 1, passAtK: 0.3 }, { k: 4, passAtK: 0.6 }],
    });
    expect(headroomFromMetrics({ 'eval/pass@1': 0.2 })).toEqual({});
  });

  it("is a checkpoint's curve from a comparison's samples, none with one sample a question", () => {
    // Two questions of 4 samples: 1 right (pass@2 = 1 - C(3,2)/C(4,2) = 0.5) and 4 right; one infrastructure-only row (n 0) left out.
    expect(headroomOfResults([{ correct: 1, n: 4 }, { correct: 4, n: 4 }, { correct: 0, n: 0 }])).toEqual([
      { k: 1, passAtK: (0.25 + 1) / 2 },
      { k: 2, passAtK: (0.5 + 1) / 2 },
      { k: 4, passAtK: 1 },
    ]);
    expect(headroomOfResults([{ correct: 1, n: 1 }, { correct: 0, n: 1 }])).toBeNull();
  });
});

describe("the curriculum's identical RL-set and held-out curves (issue 45, part 2, point 3)", () => {
  it('are two sets of 16 × 8 with one right sample each, not one set measured twice', () => {
    // 1 right of 8 on one question of 16: pass@k = (k/8)/16 = 0.0078, 0.0156, 0.0313, 0.0625 -> 0.01 / 0.02 / 0.03 / 0.06.
    const one = passAtKCurve([{ n: 8, correct: 1 }, ...Array.from({ length: 15 }, () => ({ n: 8, correct: 0 }))]);
    expect(one.map((p) => p.passAtK.toFixed(2))).toEqual(['0.01', '0.02', '0.03', '0.06']);
    // The two curves are measured on the sets given: a sample of the RL questions, the first held-out ones.
    const qa = (id: string) => ({ id }) as QA;
    const rl = Array.from({ length: 300 }, (_, i) => qa(`rl-${i}`));
    const held = Array.from({ length: 300 }, (_, i) => qa(`held-${i}`));
    const sets = headroomQuestions('run-1', rl, held, 16);
    expect(sets.rl).toHaveLength(16);
    expect(sets.rl.every((q) => q.id.startsWith('rl-'))).toBe(true);
    expect(sets.heldout.map((q) => q.id)).toEqual(held.slice(0, 16).map((q) => q.id));
  });

  it("keeps the evaluation protocol's pass@1 beside each curve", () => {
    expect(evaluationMetric('heldout')).toBe('headroom/heldout/eval_pass@1');
    expect(evaluationFromMetrics({ 'headroom/heldout/eval_pass@1': 0.5, 'headroom/rl/pass@1': 0.1 })).toEqual({ heldout: 0.5 });
    expect(headroomFromMetrics({ 'headroom/heldout/eval_pass@1': 0.5 })).toEqual({});
  });
});
