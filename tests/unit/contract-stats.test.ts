// The contract's shared rules for comparing checkpoints: the exact McNemar test, the Wilson interval (also
// tested through agent/eval in agent-scoring.test.ts), which way a metric is better, and how a comparison's
// protocol differs from a run's own evaluation. Every number worked out by hand in the comments.
import { describe, expect, it } from 'vitest';
import { curveKs, formatP, headroomSentence, lowerIsBetter, mcnemarExactP, metricDirection, passAtK, passAtKCurve, protocolDifferences, runEvalProtocol, wilsonInterval, type EvalProtocol } from '../../main/lab/contract';

describe('mcnemarExactP', () => {
  it('is the two-sided binomial tail of the discordant counts', () => {
    // b = 10, c = 6: n = 16, 2 × (1 + 16 + 120 + 560 + 1820 + 4368 + 8008) / 65536 = 29786 / 65536 = 0.454498.
    expect(mcnemarExactP(10, 6)).toBeCloseTo(0.454498, 5);
    expect(mcnemarExactP(6, 10)).toBeCloseTo(0.454498, 5);
    // b = 0, c = 5: 2 / 32.
    expect(mcnemarExactP(0, 5)).toBeCloseTo(0.0625, 12);
    expect(mcnemarExactP(0, 0)).toBe(1);
    expect(formatP(0.454498)).toBe('p = 0.45');
    expect(formatP(0.0039)).toBe('p = 0.004');
    expect(formatP(0.0001)).toBe('p < 0.001');
  });

  it('gives the Wilson interval from the contract', () => {
    // 0 of 30: [0, z² / (n + z²)] = [0, 3.8416 / 33.8416] = [0, 0.1135].
    const [lo, hi] = wilsonInterval(0, 30);
    expect(lo).toBe(0);
    expect(hi).toBeCloseTo(0.11352, 4);
  });
});

describe('metricDirection', () => {
  it('is up for accuracy and reward, down for losses and failures, neutral for behaviour', () => {
    expect(['eval/pass@1', 'pass@1', 'reward/mean', 'reward', 'solved', 'termination/answer'].map(metricDirection)).toEqual(['up', 'up', 'up', 'up', 'up', 'up']);
    expect(['sft/loss', 'actor/grad_norm', 'termination/max_steps', 'termination/format_error', 'timing/update_s'].map(metricDirection)).toEqual(['down', 'down', 'down', 'down', 'down']);
    expect(['tool_calls', 'tool_calls/search', 'rollout/tool_calls_mean', 'turns', 'rollout/num_turns_mean', 'tokens', 'rollout/response_tokens_mean'].every((m) => metricDirection(m) === 'neutral')).toBe(true);
    // lowerIsBetter is the `down` of the same rule.
    expect(lowerIsBetter('rollout/tool_calls_mean')).toBe(false);
    expect(lowerIsBetter('termination/max_tokens')).toBe(true);
  });
});

describe('eval protocol', () => {
  const run: EvalProtocol = { datasetId: 'held', questions: 300, samples: 1, temperature: 0, rng: 1 };

  it("reads a run config's evaluation, defaults in", () => {
    expect(runEvalProtocol({ rng: 4, data: { heldOutDatasetId: 'h' }, eval: { questions: 50, temperature: 0.5 } })).toEqual({ datasetId: 'h', questions: 50, samples: 1, temperature: 0.5, rng: 4 });
    expect(runEvalProtocol({ data: {} })).toBeNull();
    expect(runEvalProtocol(null)).toBeNull();
  });

  it('names each difference from the dashboard in words; none for the same protocol', () => {
    expect(protocolDifferences(run, { ...run })).toEqual([]);
    expect(protocolDifferences(run, { ...run, questions: 30, temperature: 0.7 })).toEqual(['30 questions, the dashboard asks 300', 'sampled at T 0.7, the dashboard evaluates greedily']);
    expect(protocolDifferences(run, { ...run, samples: 4, rng: 0 })).toEqual(['4 samples per question, the dashboard draws 1', "seed 0, the dashboard uses the run's seed 1"]);
    expect(protocolDifferences({ ...run, temperature: 1 }, run)).toEqual(['greedy, the dashboard samples at T 1']);
    // 300 and 500 of a 120-question set both ask all 120.
    expect(protocolDifferences(run, { ...run, questions: 500 }, { available: 120 })).toEqual([]);
    expect(protocolDifferences(run, { ...run, datasetId: 'other' }, { dataset: (id) => `«${id}»` })).toEqual(["questions from «other», the dashboard evaluates on the run's held-out set «held»"]);
  });
});

describe('passAtK and the headroom curve', () => {
  it('is 1 - C(n-c, k) / C(n, k), worked by hand', () => {
    // n = 4, c = 1, k = 2: 1 - C(3,2)/C(4,2) = 1 - 3/6 = 0.5.
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5, 12);
    // n = 10, c = 3, k = 4: 1 - C(7,4)/C(10,4) = 1 - 35/210 = 5/6.
    expect(passAtK(10, 3, 4)).toBeCloseTo(5 / 6, 12);
    // k = 1 is the share correct; too few wrong samples for k draws: 1; none right: 0.
    expect(passAtK(32, 5, 1)).toBeCloseTo(5 / 32, 12);
    expect(passAtK(8, 7, 2)).toBe(1);
    expect(passAtK(32, 0, 32)).toBe(0);
  });

  it('stays exact where the binomial coefficients are huge', () => {
    // n = 64, c = 1, k = 32: C(63,32)/C(64,32) = (64-32)/64 = 0.5, with C(64,32) ≈ 1.8e18 never formed.
    expect(passAtK(64, 1, 32)).toBeCloseTo(0.5, 12);
    // n = 1000, c = 2, k = 500: C(998,500)/C(1000,500) = (500 × 499) / (1000 × 999) = 249500 / 999000.
    expect(passAtK(1000, 2, 500)).toBeCloseTo(1 - 249500 / 999000, 12);
  });

  it('averages over questions at k = 1, 2, 4, ... n and says what RL can add', () => {
    expect(curveKs(32)).toEqual([1, 2, 4, 8, 16, 32]);
    expect(curveKs(12)).toEqual([1, 2, 4, 8, 12]);
    // Two questions of 4 samples: 2 right (pass@1 0.5, pass@2 1 - 1/6, pass@4 1) and 0 right (0, 0, 0).
    const curve = passAtKCurve([{ n: 4, correct: 2 }, { n: 4, correct: 0 }]);
    expect(curve.map((p) => p.k)).toEqual([1, 2, 4]);
    expect(curve[0]!.passAtK).toBeCloseTo(0.25, 12);
    expect(curve[1]!.passAtK).toBeCloseTo(5 / 12, 12);
    expect(curve[2]!.passAtK).toBeCloseTo(0.5, 12);
    // What the sampled curve measures, and no bound on the greedy evaluation (issue 45, part 2, point 3).
    const sampled = 'sampled pass@1 0.25, pass@4 0.50: +0.25 of these questions solved in 4 samples and not in one, the room RL has to sharpen the sampled pass@1';
    expect(headroomSentence(curve)).toBe(`${sampled} (no bound on the greedy evaluation)`);
    expect(headroomSentence(curve, 0.3)).toBe(`${sampled}; the evaluation's protocol scores 0.30 on the same questions`);
    // The quick run of the third walk: greedy 0.633 above its sampled pass@8 of 0.56.
    expect(headroomSentence([{ k: 1, passAtK: 0.43 }, { k: 8, passAtK: 0.56 }], 0.633)).toMatch(/scores 0\.63 on the same questions, already at or above pass@8: the curve bounds nothing there$/);
    expect(headroomSentence(curve)).not.toContain('at most');
    expect(headroomSentence([])).toBe('no samples: headroom not measured');
  });
});
