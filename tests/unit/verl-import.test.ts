// `sailor import verl` / runs.importVerl: a verl run's files (written in verl's shapes by tests/e2e/verl-fixture.ts,
// which names the verl source lines) become a lab run: charts under the lab's names, trajectories the inspector
// reads, --follow reading on as lines are appended, and bad input refused with nothing imported.
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LabCore } from '../../main/lab/app/core';
import type { RunMetricsEvent } from '../../main/lab/contract';
import { mapVerlMetrics, parseVerlMetricsText, splitCompleteLines, VERL_METRIC_NAMES } from '../../main/lab/runs/verl-metrics';
import { questionOf, splitDecodedTurns, stepsOf } from '../../main/lab/runs/verl-trajectories';
import { parseSet } from '../../main/lab/app/traj-reader';
import { runCli } from '../../main/lab/cli/index';
import { appendVerlStep, decodedOutput, metricsLine, VERL_QUESTION, writeVerlRunFiles } from '../e2e/verl-fixture';

const tmp = (p: string): string => mkdtempSync(join(tmpdir(), p));
const cores: LabCore[] = [];
async function openCore(): Promise<LabCore> {
  const core = await LabCore.open({ home: tmp('sailor-verl-home-'), detectBackend: false });
  cores.push(core);
  return core;
}
afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
});

describe('the verl metric names (pure)', () => {
  it('renames what means the same and keeps the rest under its own name', () => {
    const out = mapVerlMetrics({ 'critic/score/mean': 0.4, 'actor/entropy': 1.2, 'response_length/mean': 300, 'tool_call_counts/mean': 2, 'num_turns/mean': 5, 'actor/pg_clipfrac_lower': 0, 'my/own': 7 });
    expect(out).toEqual({ 'reward/mean': 0.4, 'actor/entropy': 1.2, 'rollout/response_tokens_mean': 300, 'rollout/tool_calls_mean': 2, 'num_turns/mean': 5, 'actor/pg_clipfrac_lower': 0, 'my/own': 7 });
    expect(VERL_METRIC_NAMES['timing_s/gen']).toBe('timing/rollout_s');
  });

  it("maps the one validated data source's accuracy (slashes in its name) to eval/pass@1, several sources not", () => {
    expect(mapVerlMetrics({ 'val-core/sailor/held/acc/mean@4': 0.5, 'val-aux/sailor/held/reward/mean@4': 0.6 })).toEqual({ 'eval/pass@1': 0.5, 'val-aux/sailor/held/reward/mean@4': 0.6 });
    const two = { 'val-core/a/acc/mean@1': 0.5, 'val-core/b/acc/mean@1': 0.7 };
    expect(mapVerlMetrics(two)).toEqual(two);
    // Without `acc` verl's core variable is the reward (format included): not pass@1.
    expect(mapVerlMetrics({ 'val-core/a/reward/mean@1': 0.5 })).toEqual({ 'val-core/a/reward/mean@1': 0.5 });
  });

  it('splits at the last newline and refuses a file whose last line is unfinished', () => {
    expect(splitCompleteLines('a\nb\nc')).toEqual({ lines: ['a', 'b'], rest: 'c' });
    expect(() => parseVerlMetricsText(metricsLine(1) + '{"step": 2, "da', 'm.jsonl')).toThrow(/m\.jsonl:2: the last line has no newline yet .*nothing imported/);
    const nulls = parseVerlMetricsText(JSON.stringify({ step: 3, data: { 'actor/entropy': null, x: 1 } }) + '\n', 'm.jsonl');
    expect(nulls).toEqual([{ step: 3, data: { x: 1 }, dropped: 1 }]);
  });

  it('reads the turns of a decoded response with the lab parser', () => {
    const turns = splitDecodedTurns(decodedOutput('Ada Lovelace'));
    expect(turns).toHaveLength(2);
    expect(turns[0]!.observation).toContain('Ada Lovelace: wrote');
    const { steps, prediction, termination } = stepsOf(turns);
    expect(steps.map((s) => s.action.name)).toEqual(['search', 'answer']);
    expect(steps[0]!.action.arguments).toEqual({ query: ['first published algorithm'] });
    expect([prediction, termination]).toEqual(['Ada Lovelace', 'answer']);
    expect(questionOf(`system\nbe brief\nuser\n${VERL_QUESTION}\nassistant\n`)).toBe(VERL_QUESTION);
  });
});

describe('runs.importVerl', () => {
  it('imports metrics under the lab names, rollouts as RL steps, validation as evaluations, episodes with exact turns', async () => {
    const core = await openCore();
    const f = writeVerlRunFiles(tmp('verl-run-'));
    const run = (await core.call('runs.importVerl', { metrics: f.metrics, rollouts: f.rollouts, validation: f.validation, episodes: f.episodes })) as Awaited<ReturnType<LabCore['runs']['importVerl']>>;
    expect(run.status).toBe('finished');
    expect(run.artefact.name).toBe('verl · metrics');
    expect(run.lastStep).toBe(3);
    // The dashboard's chart names (dashboard.ts MAIN_CHARTS, rlView.ts RL_CHARTS) have their points.
    for (const name of ['reward/mean', 'actor/entropy', 'actor/pg_clipfrac', 'actor/grad_norm', 'rollout/response_tokens_mean', 'rollout/tool_calls_mean', 'eval/pass@1', 'timing/rollout_s']) {
      expect(run.metrics[name], name).toBeDefined();
    }
    expect(run.metrics['eval/pass@1']).toMatchObject({ last: 0.5, best: 0.5 });
    expect(run.metrics['reward/mean']!.last).toBeCloseTo(0.5);
    // Unknown ones are kept as they are.
    expect(run.metrics['perf/throughput']!.last).toBe(1500);
    expect(run.metrics['val-aux/sailor/held/reward/mean@1']).toBeDefined();
    const records = (await core.call('runs.metrics', { id: run.artefact.id, since: -1 })) as Array<{ step: number; time: string }>;
    expect(records.map((r) => r.step)).toEqual([0, 1, 2, 3]);
    expect(Date.parse(records[2]!.time) - Date.parse(records[1]!.time)).toBe(25_000); // timing_s/step
    // Its duration is verl's, the span of its records, though no lab job ran it.
    expect(run.seconds).toBe((Date.parse(records[3]!.time) - Date.parse(records[0]!.time)) / 1000);
    expect(run.seconds).toBeGreaterThan(0);

    const detail = core.runs.get(run.artefact.id);
    expect(detail.rlSteps).toEqual([1, 2, 3]);
    expect(detail.evals.map((e) => [e.step, e.summary['eval/pass@1']])).toEqual([[0, 0], [3, 1]]);

    // The inspector's reader opens the RL step; the episode's exact turns replaced the decoded ones.
    const set = (await core.call('trajectories.get', { id: `rl:${run.artefact.id}:1` })) as { trajectories: Array<{ id: string; qa_id: string; reward: { total: number } }> };
    expect(set.trajectories).toHaveLength(4);
    const fromEpisode = set.trajectories.find((t) => t.qa_id === 'qa-ada')!;
    const one = (await core.call('trajectories.one', { id: `rl:${run.artefact.id}:1`, trajId: fromEpisode.id })) as { trajectory: { steps: Array<{ action: { arguments: unknown } }>; turn_source: string }; rendered: { text: string } };
    expect(one.trajectory.turn_source).toBe('episodes');
    expect(one.trajectory.steps[0]!.action.arguments).toEqual({ query: ['Ada Lovelace algorithm'] });
    const decoded = set.trajectories.find((t) => t.qa_id !== 'qa-ada')!;
    const two = (await core.call('trajectories.one', { id: `rl:${run.artefact.id}:1`, trajId: decoded.id })) as { trajectory: { question: string }; rendered: { text: string } };
    expect(two.trajectory.question).toBe(VERL_QUESTION);
    expect(two.rendered.text).toContain(VERL_QUESTION);
    // The group view reads the step; the sets are plain sailor.traj/1 files.
    const rl = (await core.call('runs.rlStep', { id: run.artefact.id, step: 2 })) as { groups: Array<{ rewards: number[] }> };
    expect(rl.groups[0]!.rewards).toEqual([1, 0.1, 1, 0.1]);
    const parsed = parseSet(join(core.home, 'runs', run.artefact.id, 'evals', 'step-000003.jsonl'));
    expect(parsed.summaries[0]!.prediction).toBe('Ada Lovelace');
    // The episode no dump line names is a set of its own.
    const lists = (await core.call('trajectories.list', {})) as Array<{ id: string }>;
    expect(lists.map((a) => a.id)).toContain(`${run.artefact.id}-episodes`);
  });

  it('--follow: appended lines become points and run.metrics events; an unfinished line waits for its newline', async () => {
    const core = await openCore();
    core.runs.followEveryMs = 50;
    const f = writeVerlRunFiles(tmp('verl-follow-'), 1);
    appendFileSync(f.metrics, '{"step": 2, "data": {"critic/score/'); // verl is writing
    const events: RunMetricsEvent[] = [];
    core.on('run.metrics', (e) => events.push(e));
    const run = (await core.call('runs.importVerl', { metrics: f.metrics, rollouts: f.rollouts, follow: true })) as { artefact: { id: string }; status: string };
    expect(run.status).toBe('running');
    const id = run.artefact.id;
    const steps = async (): Promise<number[]> => ((await core.call('runs.metrics', { id, since: -1 })) as Array<{ step: number }>).map((r) => r.step);
    expect(await steps()).toEqual([0, 1]);
    // The rest of the line arrives, then another step, then a new rollout dump.
    appendFileSync(f.metrics, 'mean": 0.9}}\n');
    appendVerlStep(f.metrics, 3);
    await expect.poll(steps, { timeout: 60_000 }).toEqual([0, 1, 2, 3]);
    expect(events.flatMap((e) => e.records.map((r) => [r.step, r.metrics['reward/mean']]))).toEqual([[2, 0.9], [3, expect.closeTo(0.5)]]);
    writeFileSync(join(f.rollouts, '3.jsonl'), readFileSync(join(f.rollouts, '1.jsonl'), 'utf8').replaceAll('"step": 1', '"step": 3'));
    await expect.poll(() => core.runs.get(id).rlSteps, { timeout: 60_000 }).toEqual([1, 3]);
    expect(((await core.call('runs.cancel', { id })) as { status: string }).status).toBe('finished');
  });

  it('the CLI imports and prints the run id', async () => {
    const home = tmp('sailor-verl-cli-');
    const f = writeVerlRunFiles(tmp('verl-cli-'));
    const out: string[] = [];
    const err: string[] = [];
    const prev = process.env.SAILOR_HOME;
    const code = await runCli(['import', 'verl', '--metrics', f.metrics, '--rollouts', f.rollouts, '--name', 'cluster run', '--home', home], { out: (t) => out.push(t), err: (t) => err.push(t) });
    process.env.SAILOR_HOME = prev;
    expect(code, err.join('')).toBe(0);
    expect(err.join('')).toMatch(/imported 'cluster run': \d+ metrics up to step 3, 3 rollout steps, 0 evaluations/);
    expect(existsSync(join(home, 'runs', out.join('').trim(), 'metrics.jsonl'))).toBe(true);
  });

  describe('bad input: a clear message, nothing imported', () => {
    async function refused(write: (f: ReturnType<typeof writeVerlRunFiles>) => Record<string, unknown>, message: RegExp): Promise<void> {
      const core = await openCore();
      const f = writeVerlRunFiles(tmp('verl-bad-'));
      await expect(core.call('runs.importVerl', write(f))).rejects.toThrow(message);
      expect(core.db.data.runs).toEqual([]);
      expect(existsSync(join(core.home, 'runs')) ? readdirSync(join(core.home, 'runs')) : []).toEqual([]);
    }

    it('a file that is not verl metrics (a lab metrics stream)', () =>
      refused((f) => {
        writeFileSync(f.metrics, JSON.stringify({ step: 1, time: 'x', metrics: { 'sft/loss': 1 } }) + '\n');
        return { metrics: f.metrics };
      }, /metrics\.jsonl:1: not a verl metrics file: expected one \{"step": N, "data".*this line has the keys step, time, metrics/));

    it('malformed JSON in the middle names file and line', () =>
      refused((f) => {
        writeFileSync(f.metrics, metricsLine(1) + '{oops\n' + metricsLine(3));
        return { metrics: f.metrics };
      }, /metrics\.jsonl:2: not valid JSON/));

    it('a truncated last line without --follow', () =>
      refused((f) => {
        appendFileSync(f.metrics, '{"step": 9, "data": {"a');
        return { metrics: f.metrics, rollouts: f.rollouts };
      }, /metrics\.jsonl:5: the last line has no newline yet/));

    it('a bad rollout dump line after good files: nothing written', () =>
      refused((f) => {
        appendFileSync(join(f.rollouts, '2.jsonl'), JSON.stringify({ input: 'q', output: 'a', gts: null, score: 'high', step: 2 }) + '\n');
        return { metrics: f.metrics, rollouts: f.rollouts };
      }, /rollouts\/2\.jsonl:5: score: expected a number, got "high"/));

    it('a missing file or a folder without dumps', async () => {
      await refused((f) => ({ metrics: join(f.dir, 'nope.jsonl') }), /--metrics: no file .*nope\.jsonl/);
      await refused((f) => ({ metrics: f.metrics, rollouts: f.dir }), /--rollouts: .* holds no \{step\}\.jsonl files/);
    });
  });
});
