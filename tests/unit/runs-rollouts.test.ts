// An RL step's stored rollouts (runs/<id>/rollouts/step-N.jsonl): the header reader and its errors, the
// group view matching each reward to its trajectory, and the lab core serving both: runs.get lists the
// steps, runs.rlStep returns the plan and groups, and `rl:<run>:<step>` opens in the inspector.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LabCore } from '../../main/lab/app/core';
import type { ArtefactRecord, RlStepView, RunDetail, TrajDetail, TrajSetInfo, TrajSetView } from '../../main/lab/contract';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { LabError } from '../../main/lab/base/errors';
import { demoGraph, demoQAs } from '../../main/lab/agent/demo';
import { writeGraphFile } from '../../main/lab/kg/io';
import { writeDataset } from '../../main/lab/synth/dataset';
import { readRlHeader, readRlStep, rolloutSteps, rlStepView, rolloutsFile } from '../../main/lab/runs/rollouts';
import { parseSet } from '../../main/lab/app/traj-reader';
import { rlStepLines, writeRlStep } from '../support/rl-fixture';
import { evalFile, relabelFile, relabelRounds, rftFile } from '../../main/lab/runs/layout';
import { writeTrajectorySet } from '../../main/lab/store/traj-set';

let home: string;
const RUN = 'r-rl';

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sailor-rl-'));
});

describe('rollouts file reader', () => {
  it('reads the header and trajectories of a step written in the documented format', () => {
    const file = rolloutsFile(home, RUN, 21);
    expect(file).toBe(join(home, 'runs', RUN, 'rollouts', 'step-000021.jsonl'));
    writeRlStep(file, rlStepLines(RUN, 21, [{ qaId: 'qa-demo-1', answers: [1, 0, 1, 0] }, { qaId: 'qa-demo-2', answers: [1, 1, 1, 1] }]));
    const header = readRlHeader(file);
    expect(header).toMatchObject({ kind: 'rl', step: 21, run: RUN, policy_version: 21 });
    expect(header.plan).toMatchObject({ method: 'dupo', zero_std: 1, duplicated: 0, refilled: 0, skip: false });
    expect(header.plan.groups.map((g) => [g.qa_id, g.status])).toEqual([
      ['qa-demo-1', 'kept'],
      ['qa-demo-2', 'dropped'],
    ]);
    const { trajectories } = readRlStep(file);
    expect(trajectories).toHaveLength(8);
    expect(trajectories[0]).toMatchObject({ group: '21/qa-demo-1', staleness: 0 });
    expect(rolloutSteps(home, RUN)).toEqual([21]);
    expect(rolloutSteps(home, 'no-such-run')).toEqual([]);
  });

  it('names the file, line and field of a bad header', () => {
    const file = join(home, 'bad.jsonl');
    const lines = rlStepLines(RUN, 3, [{ qaId: 'q', answers: [1, 0] }]) as Array<Record<string, unknown>>;
    const header = lines[0] as { plan: { groups: Array<Record<string, unknown>> } };
    header.plan.groups[0]!.status = 'maybe';
    writeRlStep(file, lines);
    expect(() => readRlHeader(file)).toThrow(`${file}:1: plan.groups[0].status: expected one of kept, dropped, duplicated, got "maybe"`);
    header.plan.groups[0]!.status = 'kept';
    header.plan.groups[0]!.advantages = [1];
    writeRlStep(file, lines);
    expect(() => readRlHeader(file)).toThrow('plan.groups[0].advantages: has 1 entries for 2 rewards');
    writeRlStep(file, [{ format: 'sailor.traj/1', kind: 'eval', step: 3 }]);
    expect(() => readRlHeader(file)).toThrow(`${file}:1: kind: expected 'rl', got "eval"`);
    writeFileSync(file, '{"format": "sailor.traj/1", "kind": "rl", "step": 3, "plan": {"method": "grpo", "groups": [{"qa_id": "q", "rewards": [1, "x"]');
    expect(() => readRlHeader(file)).toThrow(/bad\.jsonl:1: not valid JSON/);
  });

  it('matches every reward to its trajectory, by group and in order; a question asked twice takes the next lines', () => {
    const lines = rlStepLines(RUN, 5, [
      { qaId: 'a', answers: [1, 0] },
      { qaId: 'b', answers: [0, 0], status: 'dropped', copies: 0 },
      { qaId: 'a', answers: [0, 1], status: 'duplicated', copies: 2 },
    ]);
    const file = join(home, 'twice.jsonl');
    writeRlStep(file, lines);
    const { header } = readRlStep(file);
    // The rows as the trajectory reader lists them: a repeated id gets its line position appended.
    const rows = parseSet(file).summaries;
    const view = rlStepView(RUN, header, rows, new Map([['a', 'Question A?']]));
    expect(view.setId).toBe(`rl:${RUN}:5`);
    expect(view.plan).toEqual({ method: 'dupo', zero_std: 1, duplicated: 1, refilled: 0, skip: false });
    expect(view.groups.map((g) => g.rollouts.map((r) => r.trajId))).toEqual([
      ['5/a/0', '5/a/1'],
      ['5/b/0', '5/b/1'],
      ['5/a/0#4', '5/a/1#5'],
    ]);
    expect(view.groups[0]!.question).toBe('Question A?');
    expect(view.groups[1]!.question).toBeNull();
    const [g0] = view.groups;
    expect(g0!.rollouts[0]).toMatchObject({ reward: 1, answer: 1, format: 1, termination: 'answer', staleness: 0, policy_version: 5 });
    expect(g0!.rollouts[0]!.advantage).toBeCloseTo(1);
    expect(g0!.rollouts[1]!.advantage).toBeCloseTo(-1);
    // Without trajectory lines the plan's own numbers still show; the cells just open nothing.
    const bare = rlStepView(RUN, header, []);
    expect(bare.groups[2]!.rollouts.map((r) => [r.trajId, r.reward.toFixed(3), r.advantage.toFixed(3)])).toEqual([
      [null, '0.100', '-1.000'],
      [null, '1.000', '1.000'],
    ]);
    expect(g0!.rollouts.map((r) => r.turnAdvantages)).toEqual([null, null]); // episode credit: none per turn
  });

  it('carries the advantage of each turn under credit per turn, as the step file stores it', () => {
    const lines = rlStepLines(RUN, 6, [{ qaId: 'a', answers: [1, 0] }]) as Array<Record<string, unknown>>;
    lines[1] = { ...lines[1], turn_advantages: [0.6, 0.2, 1.1] };
    lines[2] = { ...lines[2], turn_advantages: [0.1, -1.2] };
    const file = join(home, 'turns.jsonl');
    writeRlStep(file, lines);
    const view = rlStepView(RUN, readRlStep(file).header, parseSet(file).summaries);
    expect(view.groups[0]!.rollouts.map((r) => r.turnAdvantages)).toEqual([
      [0.6, 0.2, 1.1],
      [0.1, -1.2],
    ]);
  });
});

describe('through the lab core', () => {
  let core: LabCore;
  let coreHome = '';
  beforeAll(async () => {
    coreHome = mkdtempSync(join(tmpdir(), 'sailor-rl-core-'));
    core = await LabCore.open({ home: coreHome, detectBackend: false });
    writeGraphFile(join(coreHome, 'graphs', 'g-demo.json'), demoGraph());
    writeDataset(join(coreHome, 'datasets', 'd-demo.jsonl'), { graph: 'g-demo' }, demoQAs());
    writeDataset(join(coreHome, 'datasets', 'd-held.jsonl'), { graph: 'g-demo' }, demoQAs().slice(0, 1));
    const now = new Date().toISOString();
    const config = parseRunConfig({ data: { graphId: 'g-demo', datasetId: 'd-demo', heldOutDatasetId: 'd-held' } });
    await core.db.update((data) => {
      data.graphs.push({ id: 'g-demo', name: 'demo graph', path: join('graphs', 'g-demo.json'), createdAt: now, info: {} });
      data.datasets.push({ id: 'd-demo', name: 'demo', path: join('datasets', 'd-demo.jsonl'), createdAt: now, info: { graphId: 'g-demo' } });
      data.datasets.push({ id: 'd-held', name: 'held', path: join('datasets', 'd-held.jsonl'), createdAt: now, info: { graphId: 'g-demo' } });
      data.runs.push({ id: RUN, name: 'rl demo', path: join('runs', RUN), createdAt: now, info: { config, jobIds: [] } });
    });
    for (const step of [12, 11]) {
      writeRlStep(
        rolloutsFile(coreHome, RUN, step),
        rlStepLines(RUN, step, [
          { qaId: 'qa-demo-1', answers: [1, 0, 0, 1] },
          { qaId: 'qa-demo-2', answers: [0, 0, 0, 0] },
          { qaId: 'qa-demo-3', answers: [1, 1, 0, 1], status: 'duplicated', copies: 2 },
        ]),
      );
    }
  });
  afterAll(async () => {
    await core?.close();
  });

  it('runs.get lists the steps with stored rollouts; runs.rlStep returns the plan, summary and groups', async () => {
    const detail = (await core.call('runs.get', { id: RUN })) as RunDetail;
    expect(detail.rlSteps).toEqual([11, 12]);
    const view = (await core.call('runs.rlStep', { id: RUN, step: 12 })) as RlStepView;
    expect(view).toMatchObject({ runId: RUN, step: 12, setId: `rl:${RUN}:12`, policyVersion: 12 });
    expect(view.plan).toMatchObject({ method: 'dupo', zero_std: 1, duplicated: 1, skip: false });
    expect(view.summary['reward/mean']).toBeGreaterThan(0);
    expect(view.groups.map((g) => [g.qa_id, g.status, g.copies])).toEqual([
      ['qa-demo-1', 'kept', 1],
      ['qa-demo-2', 'dropped', 0],
      ['qa-demo-3', 'duplicated', 2],
    ]);
    // Questions come from the run's training dataset.
    expect(view.groups[0]!.question).toBe('Which company was founded by Igor Khandros?');
    expect(view.groups[2]!.rollouts.map((r) => r.trajId)).toEqual(['12/qa-demo-3/0', '12/qa-demo-3/1', '12/qa-demo-3/2', '12/qa-demo-3/3']);
  });

  it('refuses bad params and missing steps with messages that say so', async () => {
    await expect(core.call('runs.rlStep', { id: RUN, step: -1 })).rejects.toThrow(/step/);
    await expect(core.call('runs.rlStep', { id: RUN })).rejects.toThrow(/step/);
    await expect(core.call('runs.rlStep', { id: RUN, step: 13 })).rejects.toThrow(`run ${RUN} has no rollouts stored for step 13`);
    const err = await core.call('runs.rlStep', { id: 'nope', step: 12 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LabError);
    expect((err as LabError).code).toBe('not_found');
  });

  it('opens `rl:<run>:<step>` as a trajectory set with group, advantage, policy version and staleness', async () => {
    const set = (await core.call('trajectories.get', { id: `rl:${RUN}:12` })) as TrajSetView;
    expect(set.artefact.name).toBe('rl demo · RL rollouts at step 12');
    expect(set.artefact.info).toMatchObject({ datasetId: 'd-demo', graphId: 'g-demo', runId: RUN, step: 12, kind: 'rl' });
    expect(set.trajectories).toHaveLength(12);
    expect(set.trajectories[0]).toMatchObject({ id: '12/qa-demo-1/0', group: '12/qa-demo-1', policy_version: 12, staleness: 0 });
    expect(set.trajectories[1]).toMatchObject({ policy_version: 11, staleness: 1 });
    expect(set.trajectories[0]!.advantage).toBeCloseTo(1);
    // pass@k over each group of G = 4.
    expect(set.eval).toMatchObject({ questions: 3, samples: 12, k: 4 });
    expect(set.eval!['pass@k']).toBeCloseTo(2 / 3);
    expect(Object.keys(set.questions).sort()).toEqual(['qa-demo-1', 'qa-demo-2', 'qa-demo-3']);
    const one = (await core.call('trajectories.one', { id: `rl:${RUN}:12`, trajId: '12/qa-demo-1/3' })) as TrajDetail;
    expect(one.trajectory).toMatchObject({ qa_id: 'qa-demo-1', advantage: expect.any(Number), group: '12/qa-demo-1' });
    expect(one.qa?.answer).toBe('FormFactor');
    expect(one.rendered.text).toContain('<answer>');
  });

  it('lists every set of every run: RFT data, evaluations and RL steps, each with the dataset its questions came from', async () => {
    // A second run whose RL stage drew from its own RL questions (ids the training set does not have).
    const RL_RUN = 'r-rl-own';
    const rlQas = demoQAs().map((qa, i) => ({ ...qa, id: `rl-q-${i}`, question: `RL question ${i}: ${qa.question}` }));
    writeDataset(join(coreHome, 'datasets', 'd-rl.jsonl'), { graph: 'g-demo' }, rlQas);
    const config = parseRunConfig({ data: { graphId: 'g-demo', datasetId: 'd-demo', heldOutDatasetId: 'd-held', rlDatasetId: 'd-rl' } });
    const now = new Date().toISOString();
    await core.db.update((data) => {
      data.datasets.push({ id: 'd-rl', name: 'rl', path: join('datasets', 'd-rl.jsonl'), createdAt: now, info: { graphId: 'g-demo' } });
      data.runs.push({ id: RL_RUN, name: 'own rl', path: join('runs', RL_RUN), createdAt: now, info: { config, jobIds: [] } });
    });
    writeRlStep(rolloutsFile(coreHome, RL_RUN, 3), rlStepLines(RL_RUN, 3, [{ qaId: 'rl-q-1', answers: [1, 0] }]));
    const traj = { id: 'qa-demo-1/0', qa_id: 'qa-demo-1', policy: `ckpt:${RL_RUN}/2`, steps: [{ think: '', action: { name: 'answer', arguments: { answer: 'FormFactor' } } }], prediction: 'FormFactor', termination: 'answer', reward: { format: 1, answer: 1, total: 1 } };
    writeTrajectorySet(evalFile(coreHome, RL_RUN, 2), { step: 2 }, [traj]);
    writeTrajectorySet(rftFile(coreHome, RL_RUN), { kind: 'rft' }, [traj]);

    const list = (await core.call('trajectories.list', {})) as ArtefactRecord<TrajSetInfo>[];
    const mine = list.filter((a) => a.info.runId === RL_RUN).map((a) => [a.id, a.name, a.info.kind, a.info.datasetId]);
    expect(mine.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      [`eval:${RL_RUN}:2`, 'own rl · evaluation at step 2', 'eval', 'd-held'],
      [`rft:${RL_RUN}`, 'own rl · RFT data (expert demonstrations)', 'rft', 'd-demo'],
      [`rl:${RL_RUN}:3`, 'own rl · RL rollouts at step 3', 'rl', 'd-rl'],
    ]);
    // The first run's RL steps are listed too; newest first overall.
    expect(list.filter((a) => a.info.runId === RUN).map((a) => a.id).sort()).toEqual([`rl:${RUN}:11`, `rl:${RUN}:12`]);
    expect(list.map((a) => a.createdAt)).toEqual(list.map((a) => a.createdAt).sort().reverse());

    // The inspector resolves an RL step's questions in the RL set, not the training set.
    const set = (await core.call('trajectories.get', { id: `rl:${RL_RUN}:3` })) as TrajSetView;
    expect(set.questions['rl-q-1']?.question).toBe(rlQas[1]!.question);
    const one = (await core.call('trajectories.one', { id: `rl:${RL_RUN}:3`, trajId: '3/rl-q-1/0' })) as TrajDetail;
    expect(one.datasetId).toBe('d-rl');
    expect(one.qa?.question).toBe(rlQas[1]!.question);
    const view = (await core.call('runs.rlStep', { id: RL_RUN, step: 3 })) as RlStepView;
    expect(view.groups[0]!.question).toBe(rlQas[1]!.question);
    // An evaluation asks the held-out questions; the RFT data the training questions.
    expect(((await core.call('trajectories.one', { id: `eval:${RL_RUN}:2`, trajId: 'qa-demo-1/0' })) as TrajDetail).datasetId).toBe('d-held');
    expect(((await core.call('trajectories.one', { id: `rft:${RL_RUN}`, trajId: 'qa-demo-1/0' })) as TrajDetail).datasetId).toBe('d-demo');
    await expect(core.call('trajectories.get', { id: 'rft:no-such-run' })).rejects.toThrow("no run with id 'no-such-run'");
  });

  it('opens a relabeling round as `relabel:<run>:<round>`, each step with the expert label the round stored', async () => {
    const RELABEL_RUN = 'r-relabel';
    const config = parseRunConfig({ data: { graphId: 'g-demo', datasetId: 'd-demo', heldOutDatasetId: 'd-held' }, relabel: { rounds: 2 } });
    await core.db.update((data) => {
      data.runs.push({ id: RELABEL_RUN, name: 'relabel', path: join('runs', RELABEL_RUN), createdAt: new Date().toISOString(), info: { config, jobIds: [] } });
    });
    const search = { name: 'search', arguments: { query: ['FormFactor'] } };
    const answer = { name: 'answer', arguments: { answer: 'FormFactor' } };
    const steps = [
      { think: 'Search "FormFactor".', action: search, observation: 'results', expert: { think: 'Search "FormFactor".', action: search, kind: 'first_search', agrees: true, kept: true } },
      { think: 'Answer.', action: answer, expert: { think: 'Read this page.', action: { name: 'visit', arguments: { url: ['sim://FormFactor'], goal: 'x' } }, kind: 'visit', agrees: false, kept: false } },
    ];
    const traj = { id: 'qa-demo-1/0', qa_id: 'qa-demo-1', policy: `ckpt:${RELABEL_RUN}/10`, steps, prediction: 'FormFactor', termination: 'answer', reward: { format: 1, answer: 1, total: 1 } };
    writeTrajectorySet(relabelFile(coreHome, RELABEL_RUN, 2), { kind: 'relabel', run: RELABEL_RUN, round: 2, step: 10, source: 'policy' }, [traj]);
    expect(relabelFile(coreHome, RELABEL_RUN, 2)).toBe(join(coreHome, 'runs', RELABEL_RUN, 'data', 'relabel-round-1.jsonl'));
    expect(relabelRounds(coreHome, RELABEL_RUN)).toEqual([2]);

    const list = (await core.call('trajectories.list', {})) as ArtefactRecord<TrajSetInfo>[];
    const mine = list.filter((a) => a.info.runId === RELABEL_RUN).map((a) => [a.id, a.info.kind, a.info.step, a.info.datasetId]);
    expect(mine).toEqual([[`relabel:${RELABEL_RUN}:2`, 'relabel', 2, 'd-demo']]);
    const one = (await core.call('trajectories.one', { id: `relabel:${RELABEL_RUN}:2`, trajId: 'qa-demo-1/0' })) as TrajDetail;
    expect(one.trajectory.steps.map((s) => [s.action.name, s.expert?.action.name, s.expert?.agrees, s.expert?.kept])).toEqual([
      ['search', 'search', true, true],
      ['answer', 'visit', false, false],
    ]);
    await expect(core.call('trajectories.get', { id: `relabel:${RELABEL_RUN}:1` })).rejects.toThrow(`run ${RELABEL_RUN} has no relabeling round 1`);
  });
});
