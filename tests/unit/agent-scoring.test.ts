// Reward, evaluation and RFT filters: every expected number below is worked out by hand in the comments.
import { describe, expect, it } from 'vitest';
import { evaluate, type EvalSample, majority, passAtK, sampleFromTrajectory, wilsonInterval } from '../../main/lab/agent/eval';
import type { AgentStep } from '../../main/lab/agent/react';
import { chatJudge, combineReward, exactMatch, formatScore, scoreTrajectory, tokenF1, turnFormatScore } from '../../main/lab/agent/reward';
import { filterTrajectories, generatedText, maxNgramCount } from '../../main/lab/agent/rft';
import type { Trajectory } from '../../main/lab/formats/index';

const search = (q: string): AgentStep => ({ think: 't', action: { name: 'search', arguments: { query: [q] } }, observation: 'o' });
const answer = (a: string): AgentStep => ({ think: 't', action: { name: 'answer', arguments: { answer: a } } });

function traj(over: Partial<Trajectory> = {}): Trajectory {
  return {
    id: 'x', qa_id: 'q1', policy: 'oracle', steps: [search('a'), answer('A')], prediction: 'A', termination: 'answer',
    reward: { format: 1, answer: 1, total: 1 }, tool_calls: 1, tokens: { generated: 10, observation: 10 }, ...over,
  };
}

describe('reward', () => {
  it('exact match normalises case, punctuation and articles, and accepts aliases', () => {
    expect(exactMatch('The FormFactor!', ['FormFactor'])).toBe(1);
    expect(exactMatch('formfactor inc', ['FormFactor', 'FormFactor, Inc.'])).toBe(1);
    expect(exactMatch('Form Factor', ['FormFactor'])).toBe(0);
    expect(exactMatch(null, ['x'])).toBe(0);
    expect(exactMatch('', [''])).toBe(0);
  });

  it('token F1: precision 2/3, recall 1 -> 0.8', () => {
    expect(tokenF1('Igor Khandros Jr', ['Igor Khandros'])).toBeCloseTo(0.8, 10);
    expect(tokenF1('Paris', ['Igor Khandros', 'Paris'])).toBe(1);
    expect(tokenF1('x', ['y'])).toBe(0);
  });

  it('format score: well-formed ReAct ending in an answer', () => {
    expect(formatScore(traj())).toBe(1);
    expect(formatScore(traj({ prediction: null, steps: [search('a')] }))).toBe(0); // never answered
    expect(formatScore(traj({ steps: [{ ...search('a'), issues: ['missing_think'] } as AgentStep, answer('A')] }))).toBe(0);
    expect(formatScore(traj({ steps: [{ think: '', action: { name: 'format_error', arguments: {} }, observation: 'e' }, answer('A')] }))).toBe(0);
    expect(formatScore(traj({ steps: [answer('A'), answer('A')] }))).toBe(0); // an answer before the end
  });

  it('graded format credit: the share of well-formed turns, a missing answer counting as one bad turn and halving it', () => {
    const bad = { think: '', action: { name: 'format_error', arguments: {} }, observation: 'e' } as AgentStep;
    expect(turnFormatScore(traj())).toBe(1); // as formatScore for a clean episode
    expect(turnFormatScore(traj({ prediction: null, steps: [search('a'), search('b'), search('c')] }))).toBe(3 / 4 / 2); // three clean calls, no answer
    // Answering, even after a broken turn, beats never answering.
    expect(turnFormatScore(traj({ steps: [search('a'), { think: '', action: { name: 'format_error', arguments: {} }, observation: 'e' } as AgentStep, answer('A')] }))).toBeGreaterThan(3 / 4 / 2);
    expect(turnFormatScore(traj({ steps: [search('a'), bad, answer('A')] }))).toBe(2 / 3);
    expect(turnFormatScore(traj({ steps: [{ ...search('a'), issues: ['missing_think'] } as AgentStep, answer('A')] }))).toBe(1 / 2);
    expect(turnFormatScore(traj({ prediction: null, steps: [] }))).toBe(0);
  });

  it('total = 0.1 * format + 0.9 * answer by default; weights and the product form are configurable', () => {
    expect(combineReward(1, 0.8)).toEqual({ format: 1, answer: 0.8, total: 0.82 });
    expect(combineReward(0, 1)).toEqual({ format: 0, answer: 1, total: 0.9 });
    expect(combineReward(1, 1, { formatWeight: 0.5, answerWeight: 0.5, combine: 'sum' }).total).toBe(1);
    expect(combineReward(0.5, 0.8, { formatWeight: 0, answerWeight: 0, combine: 'product' }).total).toBe(0.4);
  });

  it('scores a trajectory by EM, F1 or an LLM judge (asked only when EM fails)', async () => {
    const qa = { question: 'Who?', answer: 'Igor Khandros', aliases: [] };
    const t = traj({ prediction: 'Igor Khandros Jr' });
    expect(await scoreTrajectory(t, qa)).toEqual({ format: 1, answer: 0, total: 0.1 });
    expect((await scoreTrajectory(t, qa, { mode: 'f1' })).total).toBeCloseTo(0.1 + 0.9 * 0.8, 10);
    const asked: string[] = [];
    const judge = chatJudge(async (m) => {
      asked.push(m[0]!.content);
      return 'Correct.';
    });
    expect((await scoreTrajectory(t, qa, { mode: 'judge' }, judge)).answer).toBe(1);
    expect(asked[0]).toContain('Predicted answer: Igor Khandros Jr');
    await scoreTrajectory(traj({ prediction: 'igor khandros' }), qa, { mode: 'judge' }, judge);
    expect(asked).toHaveLength(1);
    expect(await chatJudge(async () => 'incorrect')('q', ['a'], 'b')).toBe(0);
    await expect(scoreTrajectory(t, qa, { mode: 'judge' })).rejects.toThrow(/needs a judge/);
  });
});

describe('eval', () => {
  it('unbiased pass@k', () => {
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5, 12); // 1 - C(3,2)/C(4,2) = 1 - 3/6
    expect(passAtK(5, 2, 3)).toBeCloseTo(0.9, 12); // 1 - C(3,3)/C(5,3) = 1 - 1/10
    expect(passAtK(3, 0, 1)).toBe(0);
    expect(passAtK(3, 3, 2)).toBe(1);
    expect(passAtK(3, 1, 1)).toBeCloseTo(1 / 3, 12);
  });

  it('majority vote over normalised answers, ties to the earliest, nulls ignored', () => {
    expect(majority([{ prediction: 'Alpha' }, { prediction: 'beta' }, { prediction: 'Beta' }])).toBe(1);
    expect(majority([{ prediction: null }, { prediction: 'Alpha' }, { prediction: 'Beta' }])).toBe(1);
    expect(majority([{ prediction: 'The' }, { prediction: 'Beta' }])).toBe(1); // normalises to nothing: no vote
    expect(majority([{ prediction: null }])).toBe(-1);
  });

  const s = (qa_id: string, correct: boolean, prediction: string | null, tools: Record<string, number>, term: EvalSample['termination'] = 'answer'): EvalSample => ({
    qa_id, correct, prediction, termination: term, tool_calls: tools, turns: Object.values(tools).reduce((a, b) => a + b, 0) + 1, tokens: 100,
  });
  // q1: right once (Alpha), wrong twice (B). q2: right twice (X), wrong once (Y). q3: never right.
  const samples = [
    s('q1', true, 'Alpha', { search: 1 }), s('q1', false, 'B', { search: 2 }), s('q1', false, 'B', { search: 3 }),
    s('q2', true, 'X', { search: 1, visit: 1 }), s('q2', true, 'X', { visit: 2 }), s('q2', false, 'Y', {}),
    s('q3', false, null, { search: 4 }, 'max_steps'), s('q3', false, 'Z', { search: 5 }), s('q3', false, 'Z', { search: 6 }),
  ];

  it('pass@1, pass@k, avg@k, cons@k by hand', () => {
    const r2 = evaluate(samples, 2);
    expect(r2['pass@1']).toBeCloseTo((1 / 3 + 2 / 3 + 0) / 3, 12);
    // pass@2: q1 1 - C(2,2)/C(3,2) = 2/3; q2 n-c = 1 < 2 -> 1; q3 0
    expect(r2['pass@k']).toBeCloseTo((2 / 3 + 1 + 0) / 3, 12);
    // avg@2 over the first two samples: q1 1/2, q2 2/2, q3 0
    expect(r2['avg@k']).toBeCloseTo(0.5, 12);
    // cons@2: q1 Alpha,B tie -> Alpha (right); q2 X,X (right); q3 null,Z -> Z (wrong)
    expect(r2['cons@k']).toBeCloseTo(2 / 3, 12);
    // cons@3: q1 A,B,B -> B (wrong); q2 X (right); q3 Z (wrong)
    expect(evaluate(samples, 3)['cons@k']).toBeCloseTo(1 / 3, 12);
  });

  it('behaviour statistics for all trajectories and for solved questions', () => {
    const r = evaluate(samples, 1);
    expect(r.questions).toBe(3);
    expect(r.samples).toBe(9);
    // tool calls per trajectory: 1,2,3,2,2,0,4,5,6 -> 25/9; search 1+2+3+1+0+0+4+5+6 = 22/9; visit 3/9
    expect(r.all.tool_calls_mean).toBeCloseTo(25 / 9, 12);
    expect(r.all.tool_calls_by_type).toEqual({ search: 22 / 9, visit: 3 / 9 });
    expect(r.all.turns_mean).toBeCloseTo(25 / 9 + 1, 12);
    expect(r.all.termination).toEqual({ answer: 8 / 9, max_steps: 1 / 9 });
    // solved = q1 and q2: tool calls 1,2,3,2,2,0 -> 10/6
    expect(r.solved.questions).toBe(2);
    expect(r.solved.trajectories).toBe(6);
    expect(r.solved.tool_calls_mean).toBeCloseTo(10 / 6, 12);
    expect(r.solved.termination).toEqual({ answer: 1 });
  });

  it('reads a trajectory as a sample', () => {
    const t = traj({ steps: [search('a'), search('b'), { think: '', action: { name: 'visit', arguments: {} }, observation: 'o' }, answer('A')] });
    expect(sampleFromTrajectory(t)).toEqual({ qa_id: 'q1', correct: true, prediction: 'A', termination: 'answer', tool_calls: { search: 2, visit: 1 }, turns: 4, tokens: 10 });
    // Partial credit (F1 0.8) is not a correct answer (contract/correct.ts isCorrect).
    expect(sampleFromTrajectory(traj({ reward: { format: 1, answer: 0.8, total: 0.82 } })).correct).toBe(false);
  });
});

describe('interval of a pass rate', () => {
  it('gives the Wilson score interval, inside [0, 1] even at none or all solved', () => {
    const [lo, hi] = wilsonInterval(50, 100); // hand-computed: 0.5 +- 1.96 * sqrt(0.0025 + 0.000096) / 1.038416
    expect(lo).toBeCloseTo(0.4038, 4);
    expect(hi).toBeCloseTo(0.5962, 4);
    const [zlo, zhi] = wilsonInterval(0, 200); // 0 of 200: [0, z^2 / (n + z^2)]
    expect(zlo).toBe(0);
    expect(zhi).toBeCloseTo(3.8416 / 203.8416, 6);
    expect(wilsonInterval(200, 200)[1]).toBe(1);
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
  });
});

describe('RFT filters', () => {
  it('counts the most repeated n-gram', () => {
    expect(maxNgramCount('a b a b a b', 2)).toBe(3); // "a b" x3, "b a" x2
    expect(maxNgramCount('A b a B', 2)).toBe(2); // case-insensitive
    expect(maxNgramCount('a b', 3)).toBe(0);
  });

  it('the generated text is thoughts and actions only', () => {
    const text = generatedText(traj());
    expect(text).toContain('<think>');
    expect(text).toContain('<answer>A</answer>');
    expect(text).not.toContain('<tool_response>');
  });

  it('applies the filters in order and reports what each removed', () => {
    const many = [search('1'), search('2'), search('3'), answer('A')];
    const loop = 'I will search again for the same thing right now.'; // 10 words, 5 times below
    const trajs = [
      traj({ steps: many, tool_calls: 3 }), // kept
      traj({ steps: many, tool_calls: 3, qa_id: 'q2' }), // kept
      traj({ reward: { format: 1, answer: 0, total: 0.1 } }), // incorrect
      traj({ reward: { format: 0, answer: 1, total: 0.9 } }), // format
      traj({ steps: many, tool_calls: 3, tokens: { generated: 20_000, observation: 20_000 } }), // too long
      traj({ tool_calls: 2 }), // too few tool calls (not more than 2)
      traj({ steps: [...many.slice(0, 3), { think: Array(5).fill(loop).join(' '), action: { name: 'answer', arguments: { answer: 'A' } } }], tool_calls: 3 }), // repetitive
      traj({ steps: many, tool_calls: 3 }), // over quota for q1
    ];
    const { kept, report } = filterTrajectories(trajs, { maxPerQa: 1 });
    expect(kept).toEqual([trajs[0], trajs[1]]);
    expect(report).toEqual({
      questions: 2, attempts: 8, kept: 2, questions_kept: 2,
      removed: { incorrect: 1, format: 1, too_long: 1, too_few_tool_calls: 1, repetitive: 1, over_quota: 1 },
    });
  });
});
