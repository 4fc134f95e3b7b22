// The headroom curve as run metrics and from a comparison's samples (contract/headroom.ts); the estimator
// itself is held by contract-stats.test.ts (Chen et al. 2021, hand-checked).
import { describe, expect, it } from 'vitest';
import { headroomFromMetrics, headroomMetrics, headroomOfResults } from '../../main/lab/contract/headroom';

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
