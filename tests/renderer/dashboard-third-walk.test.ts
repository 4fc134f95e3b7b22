// The dashboard's defects from the third walk (issue 45, item 9): RL's evaluation points crowded the right edge
// of a chart drawn over the whole run (the RL section now has its own axis, RL steps from the SFT end); a reload
// lost the runs charted (the selection is kept); "compare the first and last checkpoints" picked SFT's first
// checkpoint (now the SFT end against the RL end). Built on real series (appendRecords), as the store holds them.
import { describe, expect, it } from 'vitest';
import { appendRecords, parseSelection, type RunMetrics } from '../../renderer/src/stores/runs';
import { chartEntry, rebuild, stepAtX, type SeriesSource } from '../../renderer/src/components/runs/dashboardSeries';
import { compareChoice } from '../../renderer/src/components/runs/dashboard';
import { RL_CHARTS, rlStepsOf } from '../../renderer/src/components/runs/rlView';

const SFT_STEPS = 3000;
const RL_STEPS = 40;
const time = (step: number): string => new Date(Date.UTC(2026, 0, 1) + step * 1000).toISOString();

/** The walk's run: 3000 SFT steps evaluated every 1000, then 40 RL steps evaluated every 10. */
function walkRun(): RunMetrics {
  const m: RunMetrics = { runId: 'r', steps: [], times: [], byName: new Map(), t0: null, loaded: true, error: null };
  const records = [];
  for (let step = 1; step <= SFT_STEPS + RL_STEPS; step++) {
    const rl = step > SFT_STEPS;
    const metrics: Record<string, number> = rl ? { 'reward/mean': 0.5, 'reward/std': 0.2, 'batch/skipped': 0 } : { 'sft/loss': 1 / step };
    const evaluated = rl ? (step - SFT_STEPS) % 10 === 0 : step % 1000 === 0;
    if (evaluated) Object.assign(metrics, { 'eval/pass@1': step / 10_000, 'reward/answer': 0.3 });
    records.push({ step, time: time(step), metrics });
  }
  appendRecords(m, records);
  return m;
}

function source(m: RunMetrics, rlAxis: 'run' | 'rl', xAxis: 'step' | 'time' = 'step'): SeriesSource {
  return {
    ids: ['r'],
    xAxis,
    rlAxis,
    metricsOf: () => m,
    runOf: () => undefined,
    colourOf: () => '#3366cc',
    offsetOf: () => 0,
    rlStart: () => rlStepsOf(m.byName)[0] ?? null,
  };
}
const chart = (id: string) => RL_CHARTS.find((c) => c.id === id)!;

describe("the RL section's own axis", () => {
  const m = walkRun();

  it('draws RL evaluations at RL steps from the SFT end, whose evaluation is RL step 0', () => {
    const [pass] = chartEntry(chart('rl-pass1'), 'rl', source(m, 'rl')).series;
    expect(pass!.xs).toEqual([0, 10, 20, 30, 40]);
    expect(pass!.ys).toEqual([0.3, 0.301, 0.302, 0.303, 0.304]);
    // The same chart on the run's axis: every evaluation since step 1000, RL's four in the last 1.3 % of it.
    expect(chartEntry(chart('rl-pass1'), 'rl', source(m, 'run')).series[0]!.xs).toEqual([1000, 2000, 3000, 3010, 3020, 3030, 3040]);
  });

  it('starts the RL-phase metrics at RL step 1 (before it, the same names are SFT evaluation rollouts)', () => {
    const series = chartEntry(chart('rl-reward'), 'rl', source(m, 'rl')).series;
    const answer = series.find((s) => s.key === 'r|reward/answer')!;
    expect(answer.xs).toEqual([10, 20, 30, 40]);
    expect(series.find((s) => s.key === 'r|reward/mean')!.xs).toHaveLength(RL_STEPS);
    // In time mode, seconds since the SFT end.
    expect(chartEntry(chart('rl-pass1'), 'rl', source(m, 'rl', 'time')).series[0]!.xs).toEqual([0, 10, 20, 30, 40]);
  });

  it('maps a click back to the run step it landed on, and leaves the SFT section on the run axis', () => {
    expect(stepAtX(chart('rl-pass1'), 'rl', source(m, 'rl'), 'r', 19)).toBe(SFT_STEPS + 20);
    expect(stepAtX(chart('rl-pass1'), 'main', source(m, 'rl'), 'r', 1900)).toBe(2000);
    expect(chartEntry(chart('rl-pass1'), 'main', source(m, 'rl')).series[0]!.xs[0]).toBe(1000);
  });

  it('keeps a chart’s series array while its data is unchanged, and rebuilds it when a step lands', () => {
    const src = source(m, 'rl');
    const first = rebuild(RL_CHARTS, 'rl', src, undefined);
    const again = rebuild(RL_CHARTS, 'rl', src, first);
    expect(again.get('rl-pass1')).toBe(first.get('rl-pass1'));
    appendRecords(m, [{ step: SFT_STEPS + RL_STEPS + 1, time: time(SFT_STEPS + RL_STEPS + 1), metrics: { 'reward/mean': 0.6, 'reward/std': 0.1, 'batch/skipped': 0 } }]);
    const after = rebuild(RL_CHARTS, 'rl', src, again);
    expect(after.get('rl-pass1')).toBe(again.get('rl-pass1')); // no new evaluation
    expect(after.get('rl-reward')).not.toBe(again.get('rl-reward'));
    expect(after.get('rl-reward')!.series.find((s) => s.key === 'r|reward/mean')!.xs.at(-1)).toBe(RL_STEPS + 1);
  });
});

describe('compare from the dashboard', () => {
  const cps = [1000, 2000, 3000, 3020, 3040].map((step) => ({ step, ref: `r/${step}` }));

  it('offers the SFT end against the RL end for a run with both stages', () => {
    expect(compareChoice(cps, SFT_STEPS + 1)).toEqual({ refs: ['r/3000', 'r/3040'], label: 'compare the SFT end (step 3000) with the RL end (step 3040)' });
  });

  it('offers the first and last checkpoints of a run with one stage, and nothing with one checkpoint', () => {
    expect(compareChoice(cps.slice(0, 3), null)).toEqual({ refs: ['r/1000', 'r/3000'], label: 'compare the first and last checkpoints' });
    // RL from a checkpoint: every checkpoint is RL's.
    expect(compareChoice([{ step: 20, ref: 'c/20' }, { step: 40, ref: 'c/40' }], 1)!.refs).toEqual(['c/20', 'c/40']);
    expect(compareChoice(cps.slice(0, 1), null)).toBeNull();
  });
});

describe('the runs charted, kept across a reload', () => {
  it('reads back the ids written, once each, and nothing from what is not a list of ids', () => {
    expect(parseSelection(JSON.stringify(['a', 'b', 'a']))).toEqual(['a', 'b']);
    expect(parseSelection(null)).toEqual([]);
    expect(parseSelection('{"a":1}')).toEqual([]);
    expect(parseSelection('not json')).toEqual([]);
    expect(parseSelection(JSON.stringify(['a', 3, '']))).toEqual(['a']);
  });
});
