// The checkpoint comparison's pure helpers (renderer/src/components/compare/compareModel.ts), on small
// comparisons whose every number is worked out by hand in the comments.
import { describe, expect, it } from 'vitest';
import { mcnemarExactP as signTestP, trajSummary, wilsonInterval, type ComparisonView } from '@contract';
import type { Trajectory } from '@formats';
import {
  bestOf,
  deltaGood,
  differs,
  formatDelta,
  formatValue,
  letter,
  metricRows,
  outcomeOf,
  questionRows,
  jobSize,
  pairLine,
  pctWithInterval,
  statsOf,
  tallyOutcomes,
  validateForm,
  type CompareForm,
} from '../../renderer/src/components/compare/compareModel';

type Checkpoint = ComparisonView['checkpoints'][number];

/** A checkpoint with a full evaluation report. */
const WITH_EVAL: Checkpoint = {
  ref: 'run/10',
  setId: 'eval:run:10',
  eval: {
    questions: 4,
    k: 2,
    'pass@1': 0.5,
    'pass@k': 0.75,
    'cons@k': 0.5,
    solved: { questions: 3 },
    all: {
      trajectories: 8,
      tool_calls_mean: 2.5,
      tool_calls_by_type: { search: 1.5, visit: 1, broken: 'x' },
      turns_mean: 3,
      tokens_mean: 120.4,
      termination: { answer: 0.75, max_steps: 0.25 },
    },
  },
  counts: { 'reward/mean': 0.6, 'reward/answer': 0.5, 'reward/format': 0.1 },
};
/** A checkpoint whose set has counts only (no report): terminations are counts, not fractions. */
const COUNTS_ONLY: Checkpoint = {
  ref: 'run/20',
  setId: 'eval:run:20',
  eval: null,
  counts: { questions: 4, trajectories: 4, tool_calls_mean: 3, termination: { answer: 3, max_tokens: 1 }, 'reward/mean': 0.8 },
};

describe('statsOf', () => {
  it('reads the evaluation report, dropping values that are not numbers', () => {
    expect(statsOf(WITH_EVAL)).toEqual({
      ref: 'run/10',
      setId: 'eval:run:10',
      questions: 4,
      trajectories: 8,
      k: 2,
      pass1: 0.5,
      pass1Interval: wilsonInterval(4, 8), // 0.5 of 8 trajectories
      passk: 0.75,
      consk: 0.5,
      solved: 3,
      toolCalls: 2.5,
      toolCallsByType: { search: 1.5, visit: 1 },
      turns: 3,
      tokens: 120.4,
      reward: 0.6,
      rewardAnswer: 0.5,
      rewardFormat: 0.1,
      termination: { answer: 0.75, max_steps: 0.25 },
      infraFailures: 0,
      failures: null,
    });
  });

  it('falls back on the counts, turning termination counts into fractions of the trajectories', () => {
    const s = statsOf(COUNTS_ONLY);
    expect(s).toMatchObject({ questions: 4, trajectories: 4, toolCalls: 3, reward: 0.8, pass1: null, k: null, solved: null, turns: null, rewardAnswer: null });
    // 3 of 4 answered, 1 of 4 ran out of tokens.
    expect(s.termination).toEqual({ answer: 0.75, max_tokens: 0.25 });
  });

  it('divides by the sum of the counts when the trajectory count is missing', () => {
    const s = statsOf({ ref: 'r/1', setId: 's', eval: null, counts: { termination: { answer: 1, format_error: 3 } } });
    expect(s.trajectories).toBeNull();
    expect(s.termination).toEqual({ answer: 0.25, format_error: 0.75 });
  });
});

describe('bestOf', () => {
  it('marks every column holding the best value, none when all agree or fewer than two have one', () => {
    expect(bestOf([0.5, 0.7, 0.7], 'high')).toEqual([1, 2]);
    expect(bestOf([2, null, 1], 'low')).toEqual([2]);
    expect(bestOf([1, 1], 'high')).toEqual([]);
    expect(bestOf([null, 3], 'low')).toEqual([]);
    expect(bestOf([1, 2], null)).toEqual([]);
  });
});

describe('metricRows', () => {
  const rows = metricRows([statsOf(WITH_EVAL), statsOf(COUNTS_ONLY)]);
  const row = (key: string) => rows.find((r) => r.key === key)!;

  it('marks no side better on accuracy when the paired test finds no difference (issue 45, part 2, point 9)', () => {
    const a = statsOf(WITH_EVAL);
    const b = { ...a, ref: 'run/20', pass1: 0.6, solved: 4 };
    expect(metricRows([a, b]).find((r) => r.key === 'pass@1')!.best).toEqual([1]); // without the test, B is marked
    const unsure = metricRows([a, b], 0.81);
    for (const key of ['pass@1', 'solved']) {
      expect(unsure.find((r) => r.key === key)!.best, key).toEqual([]);
      expect(unsure.find((r) => r.key === key)!.unsure, key).toBe('no side marked better: McNemar p = 0.81, no significant difference');
    }
    expect(unsure.find((r) => r.key === 'reward')!.unsure).toBeUndefined(); // not a paired count of questions
    expect(metricRows([a, b], 0.01).find((r) => r.key === 'pass@1')!.best).toEqual([1]);
  });

  it('has a row per metric either checkpoint has, in reading order, terminations in their own order', () => {
    expect(rows.map((r) => r.key)).toEqual([
      'pass@1',
      'pass@k',
      'cons@k',
      'solved',
      'reward',
      'reward/answer',
      'reward/format',
      'tool_calls',
      'tool_calls/search',
      'tool_calls/visit',
      'turns',
      'tokens',
      'termination/answer',
      'termination/max_steps',
      'termination/max_tokens',
    ]);
    // k is the largest of the checkpoints' k (2; the counts-only one has none).
    expect(row('pass@k').label).toBe('pass@2');
    expect(row('cons@k').label).toBe('cons@2');
  });

  it('ranks by direction: reward high, cut-offs low, behaviour (tool calls, turns, tokens) not at all; sub-rows and lone values unranked', () => {
    expect(row('reward').best).toEqual([1]); // 0.6 vs 0.8
    // Fewer tool calls are not better in themselves: 2.5 vs 3 marks neither, and the row has no direction.
    expect(row('tool_calls')).toMatchObject({ better: null, best: [] });
    expect(['turns', 'tokens'].map((k) => row(k).better)).toEqual([null, null]);
    expect(row('pass@1').better).toBe('high');
    expect(row('pass@1').best).toEqual([]); // only A has a value
    expect(row('tool_calls/search')).toMatchObject({ values: [1.5, 0], best: [], sub: true });
    expect(row('termination/answer')).toMatchObject({ values: [0.75, 0.75], best: [], bar: true });
    expect(row('termination/max_steps')).toMatchObject({ values: [0.25, 0], best: [1] });
    expect(row('termination/max_tokens')).toMatchObject({ values: [0, 0.25], best: [0] });
  });

  it('leaves out rows no checkpoint has a value for', () => {
    const keys = metricRows([statsOf(COUNTS_ONLY)]).map((r) => r.key);
    expect(keys).not.toContain('pass@1');
    expect(keys).not.toContain('cons@k'); // k = 1
    expect(keys).toEqual(['reward', 'tool_calls', 'termination/answer', 'termination/max_tokens']);
  });
});

describe('formatting', () => {
  it('formats values by the row format, a dash for none', () => {
    expect(formatValue(0.1234, 'pct')).toBe('12.3%');
    expect(formatValue(2.5, 'dec2')).toBe('2.50');
    expect(formatValue(3.14159, 'dec1')).toBe('3.1');
    expect(formatValue(12345.6, 'int')).toBe('12,346');
    expect(formatValue(2.6, 'count')).toBe('3');
    expect(formatValue(null, 'pct')).toBe('–');
  });

  it('formats the change from the first column, signed, percentages in points', () => {
    expect(formatDelta(0.75, 0.5, 'pct')).toBe('+25.0 pp');
    expect(formatDelta(0.5, 0.75, 'pct')).toBe('−25.0 pp');
    expect(formatDelta(1500, 200, 'int')).toBe('+1,300');
    expect(formatDelta(2.5, 3, 'dec1')).toBe('−0.5');
    expect(formatDelta(0.25, 0.5, 'dec2')).toBe('−0.25');
    expect(formatDelta(1, 1, 'dec2')).toBe('±0');
    expect(formatDelta(null, 1, 'dec2')).toBeNull();
  });

  it('says whether a change is for the better', () => {
    expect(deltaGood(0.8, 0.6, 'high')).toBe(true);
    expect(deltaGood(3, 2.5, 'low')).toBe(false);
    expect(deltaGood(1, 1, 'high')).toBeNull();
    expect(deltaGood(1, 2, null)).toBeNull();
    expect(differs(1, 1 + 1e-12)).toBe(false);
    expect(differs(1, 2)).toBe(true);
    expect(differs(null, 1)).toBe(false);
  });

  it('names columns A, B, …', () => {
    expect([0, 1, 5].map(letter)).toEqual(['A', 'B', 'F']);
  });
});

describe('questions', () => {
  const r = (correct: number, n = 2) => ({ correct, n, trajIds: Array.from({ length: n }, (_, i) => `t${correct}${i}`) });
  const view = {
    checkpoints: [],
    questionText: { q1: 'Which river?', q2: 'Which city?' },
    questions: [
      { qa_id: 'q1', results: [r(1), r(0), r(2)] },
      { qa_id: 'q2', results: [r(0), r(1), r(0)] },
      { qa_id: 'q3', results: [r(2), r(2)] }, // no result for the third checkpoint
    ],
  } as unknown as ComparisonView;

  it('classifies each question by which of the two checkpoints solved it at least once', () => {
    expect([outcomeOf(true, true), outcomeOf(true, false), outcomeOf(false, true), outcomeOf(false, false)]).toEqual(['both', 'a_only', 'b_only', 'neither']);
    const ab = questionRows(view, 0, 1);
    expect(ab.map((x) => x.outcome)).toEqual(['a_only', 'b_only', 'both']);
    expect(ab[0]).toMatchObject({ qaId: 'q1', text: 'Which river?', a: r(1), b: r(0), all: [{ correct: 1, n: 2 }, { correct: 0, n: 2 }, { correct: 2, n: 2 }] });
    expect(ab[2]!.text).toBe('');
    expect(tallyOutcomes(ab)).toEqual({ a_only: 1, b_only: 1, both: 1, neither: 0 });
  });

  it('counts a missing result as unsolved', () => {
    const ca = questionRows(view, 2, 0);
    expect(ca.map((x) => x.outcome)).toEqual(['both', 'neither', 'b_only']);
    expect(ca[2]!.a).toEqual({ correct: 0, n: 0, trajIds: [] });
  });

  it('makes a list row of a trajectory read on its own', () => {
    const t = {
      id: 't1',
      qa_id: 'q1',
      policy: 'oracle',
      attempt: 'first',
      steps: [{}, {}, {}],
      prediction: 'Nile',
      termination: 'answer',
      reward: { format: 1, answer: 1, total: 1 },
      tool_calls: 2,
      tokens: { generated: 40, observation: 300 },
    } as unknown as Trajectory;
    expect(trajSummary(t, 3)).toEqual({ id: 't1', index: 3, qa_id: 'q1', attempt: 0, policy: 'oracle', reward: t.reward, termination: 'answer', tool_calls: 2, turns: 3, tokens: t.tokens, prediction: 'Nile' });
  });

  it('reads a row leniently, as the set reader does: counts from the steps, the attempt from the id, the header policy', () => {
    const t = {
      id: 'q1/2',
      qa_id: 'q1',
      steps: [{ action: { name: 'search' } }, { action: { name: 'visit' } }, { action: { name: 'answer' } }],
      termination: 'gave_up',
      reward: { answer: 1 },
      group: 'g0',
      advantage: 0.5,
      staleness: Number.NaN,
    } as unknown as Trajectory;
    expect(trajSummary(t, 7, { seen: 4, policy: 'ckpt:r/10' })).toEqual({
      id: 'q1/2', index: 7, qa_id: 'q1', attempt: 2, policy: 'ckpt:r/10', reward: { format: 0, answer: 1, total: 0 }, termination: 'format_error',
      tool_calls: 2, turns: 3, tokens: { generated: 0, observation: 0 }, prediction: null, group: 'g0', advantage: 0.5,
    });
    expect(trajSummary({ ...t, id: 'q1' }, 0, { seen: 4 }).attempt).toBe(4);
  });
});

describe('validateForm', () => {
  const ok: CompareForm = { name: '', checkpoints: ['r/1', 'r/2'], datasetId: 'd', questions: 30, samples: 1, temperature: 0, rng: 0 };
  const errs = (patch: Partial<CompareForm>, ids: string[] = ['d']) => validateForm({ ...ok, ...patch }, ids);

  it('accepts a complete form, at the limits too', () => {
    expect(errs({})).toEqual({});
    expect(errs({ questions: 10_000, samples: 16, rng: 2 ** 32 - 1, name: 'run 1: v2.x-y_z', checkpoints: ['a/1', 'a/2', 'a/3', 'a/4', 'a/5', 'a/6'] })).toEqual({});
    // Without a dataset list to check against, any id passes (main checks again).
    expect(errs({ datasetId: 'x' }, [])).toEqual({});
  });

  it('names what is wrong with each field', () => {
    expect(errs({ checkpoints: ['r/1'] }).checkpoints).toBe('Pick at least 2 checkpoints (1 picked).');
    expect(errs({ checkpoints: Array.from({ length: 7 }, (_, i) => `r/${i}`) }).checkpoints).toBe('At most 6 checkpoints in one comparison (7 picked).');
    expect(errs({ datasetId: '' }).datasetId).toBe('Choose the questions to answer.');
    expect(errs({ datasetId: 'x' }).datasetId).toBe('Dataset x is not in this data directory.');
    // The compare job's schema, in words, led by the field's label.
    expect(errs({ questions: 0 }).questions).toBe('questions: must be at least 1');
    expect(errs({ questions: 10_001 }).questions).toBe('questions: must be at most 10000');
    expect(errs({ questions: 2.5 }).questions).toBe('questions: must be a whole number');
    expect(errs({ questions: '' }).questions).toBe('questions: enter a number');
    expect(errs({ samples: 0 }).samples).toBe('samples: must be at least 1');
    expect(errs({ samples: 17 }).samples).toBe('samples: must be at most 16');
    expect(errs({ samples: '' }).samples).toBe('samples: enter a number');
    expect(errs({ rng: -1 }).rng).toBe('rng: must be at least 0');
    expect(errs({ rng: 2 ** 32 }).rng).toBe('rng: must be at most 4,294,967,295');
    expect(errs({ rng: 0.5 }).rng).toBe('rng: must be a whole number');
    expect(errs({ temperature: -0.1 }).temperature).toBe('temperature: must be at least 0');
    expect(errs({ temperature: 2.5 }).temperature).toBe('temperature: must be at most 2');
    expect(errs({ temperature: '' }).temperature).toBe('temperature: enter a number');
    expect(errs({ name: 'a/b' }).name).toBe('name: letters, digits, spaces and . _ : - only');
    expect(errs({ name: 'x'.repeat(81) }).name).toBe('name: at most 80 characters');
    // A field main refused is marked the same way, in words.
    expect(validateForm(ok, ['d'], [{ path: 'datasetId', message: 'refused by the lab core: check this value' }]).datasetId).toBe('questions from: refused by the lab core: check this value');
    expect(errs({ name: '   ' })).toEqual({}); // trimmed: no name
  });
});

describe('mcnemarExactP (the contract\'s exact McNemar test)', () => {
  it('matches the exact two-sided binomial tail worked out by hand', () => {
    expect(signTestP(0, 0)).toBe(1);
    // n = 5, k = 0: 2 × 1/32.
    expect(signTestP(5, 0)).toBeCloseTo(0.0625, 12);
    expect(signTestP(0, 5)).toBeCloseTo(0.0625, 12);
    // n = 4, k = 1: 2 × (1 + 4)/16.
    expect(signTestP(3, 1)).toBeCloseTo(0.625, 12);
    // n = 10, k = 3: 2 × (1 + 10 + 45 + 120)/1024.
    expect(signTestP(7, 3)).toBeCloseTo(0.34375, 12);
    expect(signTestP(3, 7)).toBeCloseTo(0.34375, 12);
    // n = 4, k = 2: 2 × 11/16 > 1, capped.
    expect(signTestP(2, 2)).toBe(1);
  });

  it('stays finite where 2^-n underflows', () => {
    expect(signTestP(1000, 1000)).toBe(1);
    const p = signTestP(0, 2000);
    expect(Number.isNaN(p)).toBe(false);
    expect(p).toBeLessThan(1e-300);
    expect(signTestP(600, 400)).toBeGreaterThan(0);
    expect(signTestP(600, 400)).toBeLessThan(1e-9);
  });
});

describe('A against B in one line', () => {
  const stat = (pass1: number, trajectories: number) => ({ ...statsOf(COUNTS_ONLY), pass1, trajectories, pass1Interval: null as [number, number] | null });

  it('writes a rate with its interval in whole percent', () => {
    expect(pctWithInterval(0.623, [0.5712, 0.6849])).toBe('62.3 % (57–68)');
    expect(pctWithInterval(0.5, null)).toBe('50.0 %');
    expect(pctWithInterval(null, null)).toBe('–');
  });

  it('reads the interval from the evaluation: 50 of 100 gives the Wilson interval 40.4–59.6 %', () => {
    const s = statsOf({ ...WITH_EVAL, eval: { ...(WITH_EVAL.eval as object), 'pass@1': 0.5, all: { trajectories: 100 } } });
    expect(s.pass1Interval![0]).toBeCloseTo(0.4038, 3);
    expect(s.pass1Interval![1]).toBeCloseTo(0.5962, 3);
  });

  it('says which questions flipped and what McNemar makes of them', () => {
    const l = pairLine(['A', 'B'], [stat(0.623, 300), stat(0.637, 300)], 6, 10);
    expect(l.flips).toBe('10 solved only by B, 6 only by A');
    // b = 10, c = 6: 2 × 14893 / 2^16 = 0.4545.
    expect(l.test).toBe('McNemar p = 0.45: no significant difference');
    expect(l.rates).toMatch(/^A 62\.3 % · B 63\.7 %$/);
    // b = 0, c = 5: 2 / 32 = 0.0625, still not below 0.05.
    expect(pairLine(['A', 'B'], [undefined, undefined], 0, 5).test).toBe('McNemar p = 0.06: no significant difference');
    // 9 against 0: 2 / 512 = 0.0039.
    expect(pairLine(['A', 'B'], [undefined, undefined], 0, 9).test).toBe('McNemar p = 0.004: B is better on these questions (9 questions against 0)');
    expect(pairLine(['A', 'C'], [undefined, undefined], 0, 0)).toMatchObject({ flips: 'no question solved by only one of them', p: 1 });
  });
});

describe('jobSize', () => {
  it('multiplies valid counts, capped by the dataset, and never shows a negative count', () => {
    expect(jobSize(2, 300, 1, 100)).toBe('2 checkpoints × 100 questions × 1 sample = 200 trajectories');
    expect(jobSize(2, 30, 2, null)).toBe('2 checkpoints × 30 questions × 2 samples = 120 trajectories');
    // What showed "-6 trajectories": -3 questions went into the product.
    expect(jobSize(2, -3, 1, 100)).toBe('2 checkpoints × ? questions × 1 sample');
    expect(jobSize(2, 3, '', 100)).toBe('2 checkpoints × 3 questions × ? samples');
  });
});

describe('the failure breakdown in Compare', () => {
  // A: 8 episodes, 4 solved, 2 loops, 2 wrong with the answer in view; B: 8 episodes, 6 solved, 2 never saw it.
  const zero = { solved: 0, repetition_loop: 0, format_error: 0, out_of_calls: 0, repeated_question_entity: 0, wrong_answer_in_view: 0, never_saw_answer: 0 };
  const a = statsOf({ ...WITH_EVAL, eval: { ...WITH_EVAL.eval, failures: { ...zero, solved: 4, repetition_loop: 2, wrong_answer_in_view: 2 } } });
  const b = statsOf({ ...WITH_EVAL, ref: 'run/20', eval: { ...WITH_EVAL.eval, failures: { ...zero, solved: 6, never_saw_answer: 2 } } });
  const rows = metricRows([a, b, statsOf(COUNTS_ONLY)]);
  const row = (key: string) => rows.find((r) => r.key === key)!;

  it('a row per class, as shares of the episodes classified, solved ranked high and every failure low', () => {
    expect(rows.filter((r) => r.group === 'failures').map((r) => r.key)).toEqual([
      'failures/solved', 'failures/repetition_loop', 'failures/format_error', 'failures/out_of_calls',
      'failures/repeated_question_entity', 'failures/wrong_answer_in_view', 'failures/never_saw_answer',
    ]);
    expect(row('failures/solved')).toMatchObject({ values: [0.5, 0.75, null], better: 'high', best: [1], bar: true });
    expect(row('failures/repetition_loop')).toMatchObject({ values: [0.25, 0, null], better: 'low', best: [1] });
    expect(row('failures/never_saw_answer')).toMatchObject({ values: [0, 0.25, null], best: [0] });
  });

  it('a report without a whole breakdown reads as none', () => {
    expect(statsOf({ ...WITH_EVAL, eval: { ...WITH_EVAL.eval, failures: { solved: 3 } } }).failures).toBeNull();
    expect(statsOf(COUNTS_ONLY).failures).toBeNull();
  });
});
