import { describe, expect, it } from 'vitest';
import { breakdownFromMetrics, breakdownMetrics, comparisonBreakdowns, levelBreakdown, questionHops, questionScores, type QuestionLevel } from '../../main/lab/contract/level-breakdown';

const pat = (s: string, rel: string, o: string) => ({ s, rel, o });

describe('questionHops', () => {
  it('counts the patterns between the answer and the entity the question names', () => {
    expect(questionHops({ answer: '?a', patterns: [pat('Q1', 'capital', '?a')] })).toBe(1);
    // Bridgetown -> ?x (Barbados) -> ?a: a chain through one bridge.
    expect(questionHops({ answer: '?a', patterns: [pat('Bridgetown', 'capital_of', '?x'), pat('?a', 'located_in', '?x')] })).toBe(2);
    expect(questionHops({ answer: '?a', patterns: [pat('Q1', 'r', '?x'), pat('?x', 'r', '?y'), pat('?y', 'r', '?a')] })).toBe(3);
  });
  it('takes the nearest named entity, and the farthest term when none is named', () => {
    // "State College is in the United States. Which airport serves State College?": one lookup from State College.
    expect(questionHops({ answer: '?a', patterns: [pat('?a', 'serves_city', 'city:1'), pat('city:1', 'located_in', 'country:USA')] })).toBe(1);
    expect(questionHops({ answer: '?a', patterns: [pat('Q1', 'r', '?a'), pat('Q2', 'r', '?x'), pat('?x', 'r', '?a')] })).toBe(1);
    expect(questionHops({ answer: '?a', patterns: [pat('?x', 'r', '?a')] })).toBe(1);
    expect(questionHops({ answer: '?a', patterns: [] })).toBe(0);
  });
});

describe('levelBreakdown', () => {
  // Six questions by hand: q1-q3 one hop (levels 1, 1, 2), q4-q5 two hops (level 2, 3), q6 three hops (level 3).
  const levels = new Map<string, QuestionLevel>([
    ['q1', { hops: 1, level: 1 }], ['q2', { hops: 1, level: 1 }], ['q3', { hops: 1, level: 2 }],
    ['q4', { hops: 2, level: 2 }], ['q5', { hops: 2, level: 3 }], ['q6', { hops: 3, level: 3 }],
  ]);
  // Two samples per question: q1 both right, q2 one of two, q3 none, q4 both, q5 none, q6 none; q7 has no level.
  const samples = [
    ['q1', true], ['q1', true], ['q2', true], ['q2', false], ['q3', false], ['q3', false],
    ['q4', true], ['q4', true], ['q5', false], ['q5', false], ['q6', false], ['q6', false], ['q7', true], ['q7', true],
  ].map(([qa_id, correct]) => ({ qa_id: qa_id as string, correct: correct as boolean }));
  const scores = questionScores(samples);
  const expert = new Map([['q1', 1], ['q2', 1], ['q3', 0], ['q4', 1], ['q5', 1]]); // q6 not attempted

  it('gives pass@1 per hop count and per level, with the expert beside it', () => {
    expect(scores.get('q2')).toBe(0.5);
    const b = levelBreakdown(scores, levels, expert);
    expect(b.hops).toEqual([
      { key: 1, questions: 3, passAt1: 0.5, expert: 2 / 3 },
      { key: 2, questions: 2, passAt1: 0.5, expert: 1 },
      { key: 3, questions: 1, passAt1: 0, expert: null },
    ]);
    expect(b.level).toEqual([
      { key: 1, questions: 2, passAt1: 0.75, expert: 1 },
      { key: 2, questions: 2, passAt1: 0.5, expert: 0.5 },
      { key: 3, questions: 2, passAt1: 0, expert: 1 },
    ]);
  });

  it('leaves the ceiling null without an expert, and names flat metrics', () => {
    const b = levelBreakdown(scores, levels);
    expect(b.hops.map((r) => r.expert)).toEqual([null, null, null]);
    expect(breakdownMetrics(levelBreakdown(scores, levels, expert))).toMatchObject({ 'eval/pass@1_hops2': 0.5, 'eval/pass@1_hops2_expert': 1 });
    expect(breakdownMetrics(levelBreakdown(scores, levels, expert))).not.toHaveProperty('eval/pass@1_hops3_expert');
    expect(breakdownMetrics(b)).toEqual({
      'eval/pass@1_hops1': 0.5, 'eval/pass@1_hops2': 0.5, 'eval/pass@1_hops3': 0,
      'eval/pass@1_level1': 0.75, 'eval/pass@1_level2': 0.5, 'eval/pass@1_level3': 0,
    });
  });

  it('reads a breakdown back from the metrics it wrote (counts aside), and null from none', () => {
    const b = levelBreakdown(scores, levels, expert);
    const zeroed = (rows: typeof b.hops) => rows.map((r) => ({ ...r, questions: 0 }));
    expect(breakdownFromMetrics({ ...breakdownMetrics(b), 'eval/pass@1': 0.3 })).toEqual({ hops: zeroed(b.hops), level: zeroed(b.level) });
    expect(breakdownFromMetrics({ 'eval/pass@1': 0.3 })).toBeNull();
  });

  it('gives one breakdown per checkpoint of a comparison, the expert beside each', () => {
    const r = (correct: number) => ({ correct, n: 1, trajIds: [] });
    const view = {
      questions: [{ qa_id: 'q1', results: [r(1), r(0)] }, { qa_id: 'q4', results: [r(0), r(1)] }, { qa_id: 'q5', results: [r(0), r(1)] }],
      questionLevels: Object.fromEntries(levels),
      expert: { q1: 1, q4: 1, q5: 0 },
    };
    const [a, b] = comparisonBreakdowns(view);
    expect(a!.hops).toEqual([{ key: 1, questions: 1, passAt1: 1, expert: 1 }, { key: 2, questions: 2, passAt1: 0, expert: 0.5 }]);
    expect(b!.hops).toEqual([{ key: 1, questions: 1, passAt1: 0, expert: 1 }, { key: 2, questions: 2, passAt1: 1, expert: 0.5 }]);
    expect(comparisonBreakdowns({ questions: view.questions })).toEqual([]);
  });
});
