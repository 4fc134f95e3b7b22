// A run's progress and time left over every stage, by time: hand-checked plans, rates and timelines.
import { describe, expect, it } from 'vitest';
import { filterQuestions, paceScale, planStages, stageRates, timeline, type PlanConfig, type PlanCounts } from '../../main/lab/contract/run-timeline';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { estimateRun } from '../../main/lab/train/act/estimate';
import { evalsBy, priorRates, RunClock } from '../../main/lab/train/policy/run-clock';
import { busyNote, type RunMeasurements } from '../../main/lab/contract';

// The quick preset's shape: 3000 SFT steps evaluated every 1000, then 40 DUPO steps of 8 × 8 evaluated every 20.
const quick: PlanConfig = {
  sft: { steps: 3000 },
  eval: { every: 1000, questions: 300, samples: 1 },
  rft: { attempts: 1, forcedAnswers: false },
  rl: { steps: 40, batchQuestions: 8, groupSize: 8, evalEvery: 20, algorithm: 'dupo', dropTooEasy: true, pool: 'fixed' },
};
const counts: PlanCounts = { trainQuestions: 1600, heldOutQuestions: 300, rlQuestions: 264, trainsTokenizer: false };

describe('planStages', () => {
  it('counts every stage in its own units, the filter from the RL set actually made (264, not 40 × 8 = 320)', () => {
    expect(planStages(quick, counts)).toEqual([
      { key: 'rft', units: 1600, unit: 'expert rollouts' },
      { key: 'sft', units: 3000, unit: 'SFT steps' },
      { key: 'eval', units: 5 * 300, unit: 'evaluation episodes' }, // 3 SFT + 2 RL evaluations
      { key: 'filter', units: 264 * 8, unit: 'filter rollouts' },
      { key: 'rl', units: 40, unit: 'RL steps', episodes: 64 },
    ]);
  });

  it('sizes the filter as the fixed pool only: min(RL set, steps × batch), none for the frontier pool or GRPO', () => {
    expect(filterQuestions(quick, 264)).toBe(264);
    expect(filterQuestions(quick, 500)).toBe(320);
    expect(filterQuestions({ ...quick, rl: { ...quick.rl!, pool: 'frontier' } }, 264)).toBe(0);
    expect(filterQuestions({ ...quick, rl: { ...quick.rl!, algorithm: 'grpo' } }, 264)).toBe(0);
  });

  it('has a tokenizer stage only when the run trains one, and no RFT or SFT for RL from a checkpoint', () => {
    expect(planStages(quick, { ...counts, trainsTokenizer: true }).map((s) => s.key)).toEqual(['rft', 'tokenizer', 'sft', 'eval', 'filter', 'rl']);
    expect(planStages({ ...quick, sft: { steps: 0 } }, counts).map((s) => s.key)).toEqual(['eval', 'filter', 'rl']);
  });
});

describe('timeline', () => {
  const plan = planStages(quick, counts);

  it('at SFT step 3000 of 3000 with RL to come is not 99 % done: the evaluations, filter and RL steps left are timed', () => {
    // Measured: RFT 1600 rollouts in 160 s, 3000 SFT steps in 519 s, 3 evaluations of 300 episodes at 0.1 s.
    const done = { rft: { units: 1600, seconds: 160 }, sft: { units: 3000, seconds: 519 }, eval: { units: 900, seconds: 90 } };
    // The estimate said 0.2 s per episode (the run measures half that) and 18 s per RL step.
    const t = timeline(plan, done, { eval: 0.2, filter: 0.2, rl: 18 });
    // Left: 600 episodes × 0.1 + 2112 filter rollouts × 0.2 × 0.5 + 40 RL steps × 18 × 0.5 = 60 + 211.2 + 360.
    expect(t.secondsLeft).toBeCloseTo(631.2, 6);
    expect(t.fraction).toBeCloseTo(769 / (769 + 631.2), 6); // 0.549, where steps alone said 3000 / 3040 = 98.7 %
    expect(t.stages.map((s) => [s.key, s.basis])).toEqual([['rft', 'measured'], ['sft', 'measured'], ['eval', 'measured'], ['filter', 'estimate'], ['rl', 'estimate']]);
  });

  it('takes the run’s own rate once it has measured enough units, and the estimate’s before', () => {
    const before = timeline(plan, { sft: { units: 4, seconds: 40 } }, { rft: 0.1, sft: 0.2, eval: 0.1, filter: 0.1, rl: 10 });
    expect(before.stages.find((s) => s.key === 'sft')!.rate).toBe(0.2); // 4 steps are too few to trust
    const after = timeline(plan, { sft: { units: 5, seconds: 50 } }, { rft: 0.1, sft: 0.2, eval: 0.1, filter: 0.1, rl: 10 });
    expect(after.stages.find((s) => s.key === 'sft')!.rate).toBe(10);
    expect(after.stages.find((s) => s.key === 'sft')!.leftSeconds).toBe(2995 * 10);
  });

  it('without an estimate knows no time left until an evaluation is measured; then a filter rollout or an RL step’s 64 rollouts cost evaluation episodes', () => {
    const early = timeline(plan, { rft: { units: 1600, seconds: 160 }, sft: { units: 10, seconds: 2 } }, {});
    expect(early.fraction).toBeNull();
    expect(early.secondsLeft).toBeNull();
    const later = timeline(plan, { rft: { units: 1600, seconds: 160 }, sft: { units: 1000, seconds: 200 }, eval: { units: 300, seconds: 30 } }, {});
    expect(stageRates({ eval: { units: 300, seconds: 30 } }, {}, 64).rl).toEqual({ rate: 6.4, basis: 'estimate' });
    // Left: 2000 × 0.2 + 1200 × 0.1 + 2112 × 0.1 + 40 × 6.4 = 400 + 120 + 211.2 + 256.
    expect(later.secondsLeft).toBeCloseTo(987.2, 6);
  });

  it('counts a resumed run’s earlier steps as done but does not time them', () => {
    const t = timeline(plan, { rft: { units: 1600, seconds: 0, untimed: 1600 }, sft: { units: 2000, seconds: 0, untimed: 2000 } }, { sft: 0.3, eval: 0.1, filter: 0.1, rl: 10 });
    expect(t.stages.find((s) => s.key === 'sft')).toMatchObject({ done: 2000, rate: 0.3, basis: 'estimate', leftSeconds: 300 });
    expect(t.stages.find((s) => s.key === 'rft')).toMatchObject({ leftSeconds: 0 });
  });

  it('ends at 1 with nothing left', () => {
    const all = Object.fromEntries(plan.map((s) => [s.key, { units: s.units, seconds: 10 }]));
    expect(timeline(plan, all, {})).toMatchObject({ fraction: 1, secondsLeft: 0 });
  });
});

describe('the run clock', () => {
  const config = parseRunConfig({
    data: { graphId: 'g', datasetId: 't', heldOutDatasetId: 'h', rlDatasetId: 'r' },
    sft: { steps: 100 },
    eval: { every: 50, questions: 10, samples: 1 },
    rft: { attempts: 1, forcedAnswers: false },
    rl: { algorithm: 'dupo', steps: 4, batchQuestions: 2, groupSize: 4, evalEvery: 2 },
  });
  const c = { trainQuestions: 40, heldOutQuestions: 10, rlQuestions: 6, trainsTokenizer: false };
  const measured: RunMeasurements = { backend: 'wasm', stepSeconds: 0.5, turnSeconds: 0.1, rolloutSeconds: 0.01, turnsPerTrajectory: 5, tokenizerSeconds: 1, trainQuestions: 40, heldOutQuestions: 10 };

  it('re-estimates the launch estimate for the run’s actual question counts (the filter over the 6 RL questions made)', () => {
    const prior = priorRates(config, c, measured);
    const e = estimateRun(config, { ...measured, rlQuestions: 6 });
    const filterPart = e.parts.find((p) => p.key === 'filter')!;
    expect(filterPart.detail).toContain('6 questions');
    expect(prior.filter! * 6 * 4).toBeCloseTo(filterPart.seconds, 9);
    expect(prior.sft).toBeCloseTo(0.5, 9);
    expect(prior.eval).toBeCloseTo(0.5, 9); // 5 turns × 0.1 s
  });

  it('times work as it goes: SFT and RL steps from their records, evaluations from when they began', () => {
    let now = 0;
    const plan = planStages(config, c);
    const clock = new RunClock(plan, priorRates(config, c, measured), () => now);
    clock.begin('rft');
    now = 4000;
    clock.soFar('rft', 40);
    for (let s = 1; s <= 100; s++) clock.record(s, 100, { 'timing/update_s': 0.2 });
    clock.begin('eval');
    now += 3000;
    clock.soFar('eval', 20); // both SFT evaluations, 10 episodes each, in 3 s
    clock.record(101, 100, { 'timing/update_s': 1, 'timing/rollout_s': 3 });
    const t = clock.timeline();
    expect(t.stages.map((s) => [s.key, s.done, s.basis])).toEqual([['rft', 40, 'measured'], ['sft', 100, 'measured'], ['eval', 20, 'measured'], ['filter', 0, 'estimate'], ['rl', 1, 'measured']]);
    // Left: 2 RL evaluations × 10 episodes × 0.15 s + 24 filter rollouts at the estimate × (0.15 / 0.5) + 3 RL steps × 4 s.
    expect(t.secondsLeft).toBeCloseTo(20 * 0.15 + 24 * priorRates(config, c, measured).filter! * 0.3 + 12, 6);
    const p = clock.progress('RL step 1', 0.99);
    expect(p.fraction).toBeLessThan(0.9);
    expect(p.secondsLeft).toBeCloseTo(t.secondsLeft!, 9);
    expect(p.stages!.map((s) => s.label)).toEqual(['RFT data', 'SFT', 'evaluations', 'too-easy filter', 'RL steps']);
  });

  it('counts the evaluations a resumed run made before its step', () => {
    expect(evalsBy(config, 0)).toBe(0);
    expect(evalsBy(config, 49)).toBe(0);
    expect(evalsBy(config, 50)).toBe(1);
    expect(evalsBy(config, 100)).toBe(2);
    expect(evalsBy(config, 101)).toBe(2);
    expect(evalsBy(config, 102)).toBe(3);
    expect(evalsBy(config, 104)).toBe(4);
  });
});

describe('estimates under load (issue 45, part 2, point 4)', () => {
  const plan = planStages(quick, counts);

  it('re-estimates every stage from the run’s own pace as soon as it has one: a warm-up 3× slow under load', () => {
    // The warm-up said 0.6 s an SFT step, 0.3 s an episode, 18 s an RL step; the run's first 10 SFT steps take 0.2 s each.
    const prior = { rft: 0.1, sft: 0.6, eval: 0.3, filter: 0.3, rl: 18 };
    const done = { rft: { units: 1600, seconds: 160 }, sft: { units: 10, seconds: 2 } };
    // Measured 160 + 2 s where the estimate said 160 + 6: the pace is 162 / 166.
    expect(paceScale(done, prior)).toBeCloseTo(162 / 166, 12);
    expect(paceScale({ sft: { units: 10, seconds: 2 } }, prior)).toBeCloseTo(1 / 3, 12);
    const rates = stageRates({ sft: { units: 10, seconds: 2 } }, prior, 64);
    expect(rates.eval).toEqual({ rate: expect.closeTo(0.1, 12), basis: 'estimate' });
    expect(rates.rl.rate).toBeCloseTo(6, 12);
    // Too few units to trust say nothing: the estimate stands.
    expect(paceScale({ sft: { units: 4, seconds: 0.8 } }, prior)).toBe(1);
    // The time left follows: 2990 × 0.2 + 1500 × 0.1 + 2112 × 0.1 + 40 × 6 where the warm-up alone said three times that.
    const t = timeline(plan, { rft: { units: 1600, seconds: 160, untimed: 1600 }, sft: { units: 10, seconds: 2 } }, prior);
    expect(t.secondsLeft).toBeCloseTo(2990 * 0.2 + 1500 * 0.1 + 2112 * 0.1 + 40 * 6, 6);
  });

  it('never moves the progress bar back when an evaluation turns out slower than estimated', () => {
    const config = parseRunConfig({ data: { graphId: 'g', datasetId: 't', heldOutDatasetId: 'h' }, sft: { steps: 100 }, eval: { every: 50, questions: 100, samples: 1 }, rft: { attempts: 1, forcedAnswers: false } });
    const c = { trainQuestions: 40, heldOutQuestions: 100, rlQuestions: 40, trainsTokenizer: false };
    let now = 0;
    // The estimate: 0.1 s an evaluation episode; they take 1 s. Until 20 are done (MIN_MEASURED) the estimate stands.
    const clock = new RunClock(planStages(config, c), { rft: 0.1, sft: 0.5, eval: 0.1 }, () => now);
    clock.add('rft', 40, 4);
    for (let s = 1; s <= 50; s++) clock.record(s, 100, { 'timing/update_s': 0.5 });
    clock.begin('eval');
    now = 19_000;
    clock.soFar('eval', 19);
    const before = clock.progress('step 50: evaluating 19 of 100', 0);
    // Done 4 + 25 + 19 s, left 25 + 181 × 0.1 s: 48 / 91.1.
    expect(before.fraction).toBeCloseTo(48 / 91.1, 9);
    now = 20_000;
    clock.soFar('eval', 20);
    // Now measured at 1 s an episode: by time alone the run is less far along (49 / 254) ...
    expect(clock.timeline().fraction!).toBeCloseTo(49 / 254, 9);
    // ... but the bar holds, and moves on from there once the run passes it.
    const during = clock.progress('step 50: evaluating 20 of 100', 0);
    expect(during.fraction).toBe(before.fraction);
    expect(during.secondsLeft).toBeCloseTo(205, 9); // the time left is the re-estimate's, not held
    now = 200_000;
    clock.soFar('eval', 200);
    for (let s = 51; s <= 100; s++) clock.record(s, 100, { 'timing/update_s': 0.5 });
    expect(clock.progress('step 100', 0).fraction).toBeGreaterThan(before.fraction);
  });
});

describe('a warm-up measured on busy cores', () => {
  it('is called likely inflated, by how much, above one unit of load per core; not on idle cores or without a load', () => {
    expect(busyNote({ load: { average: 8.2, cores: 2 } })).toBe(
      'measured while the machine was busy (load 8.2 on 2 cores): likely inflated, by up to 4.1× if that work ends; a run re-estimates from its own pace after its first steps',
    );
    expect(busyNote({ load: { average: 1.9, cores: 2 } })).toBeNull();
    expect(busyNote({})).toBeNull();
  });
});
