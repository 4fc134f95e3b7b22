// Trajectory sets through the lab core: the rollout job runs the agent in a real worker and registers a
// `sailor.traj/1` file; trajectories.list / get / one read it back (summaries, eval, the exact model text).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LabCore } from '../../main/lab/app/core';
import type { ArtefactRecord, JobProgress, JobRecord, JobStatus, TrajDetail, TrajSetView } from '../../main/lab/contract';
import { runRollout } from '../../main/lab/train/act/rollout-job';
import { CancelledError, type JobContext } from '../../main/lab/jobs/context';
import { LabError } from '../../main/lab/base/errors';
import { demoGraph, demoQAs } from '../../main/lab/agent/demo';
import { writeGraphFile } from '../../main/lab/kg/io';
import { writeDataset } from '../../main/lab/synth/dataset';
import { checkStoreData } from '../../main/lab/store/db';
import { waitForStatus } from '../support/helpers';

let core: LabCore;
let home: string;

/** Waits for a job of this file's core (rollouts take longer than the jobs test's default allows). */
const waitFor = (id: string, statuses: JobStatus[]): Promise<JobRecord> => waitForStatus(core, id, statuses, 40_000);

async function rejection(p: Promise<unknown>): Promise<LabError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LabError);
  return err as LabError;
}

/** Registers a file already in the data directory, as a finished job would. */
async function register(collection: 'graphs' | 'datasets' | 'trajectories', artefact: Omit<ArtefactRecord, 'createdAt'>): Promise<void> {
  await core.db.update((data) => void data[collection].push({ ...artefact, createdAt: new Date().toISOString() }));
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'sailor-traj-'));
  core = await LabCore.open({ home, detectBackend: false });
  writeGraphFile(join(home, 'graphs', 'g-demo.json'), demoGraph());
  writeDataset(join(home, 'datasets', 'd-demo.jsonl'), { graph: 'g-demo' }, demoQAs());
  await register('graphs', { id: 'g-demo', name: 'demo graph', path: join('graphs', 'g-demo.json'), info: {} });
  await register('datasets', { id: 'd-demo', name: 'demo QAs', path: join('datasets', 'd-demo.jsonl'), info: { graphId: 'g-demo' } });
});

afterAll(async () => {
  await core?.close();
});

describe('rollout job', () => {
  let setId: string;

  it('runs n attempts per QA in a worker, writes the set atomically and registers it with its eval', async () => {
    const started = (await core.call('jobs.start', { kind: 'rollout', params: { datasetId: 'd-demo', graphId: 'g-demo', policy: 'oracle', n: 2, rng: 3 } })) as JobRecord;
    expect(started.params).toMatchObject({ policy: 'oracle', n: 2, rng: 3, reward: 'em' });
    const done = await waitFor(started.id, ['succeeded', 'failed']);
    expect(done.error).toBeUndefined();
    expect(done.status).toBe('succeeded');
    setId = done.id;
    const qas = demoQAs().length;

    const list = (await core.call('trajectories.list', {})) as ArtefactRecord[];
    expect(list.map((a) => a.id)).toEqual([setId]);
    const art = list[0]!;
    expect(art.path).toBe(join('trajectories', `${setId}.jsonl`));
    expect(art.info).toMatchObject({ graphId: 'g-demo', datasetId: 'd-demo', policy: 'oracle', n: 2 });
    expect(art.info.counts).toMatchObject({ trajectories: 2 * qas, questions: qas });
    expect(art.info.eval).toMatchObject({ questions: qas, samples: 2 * qas, k: 2 });

    // Header line first, then one trajectory per line; no temp file left behind.
    const lines = readFileSync(join(home, art.path), 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'sailor.traj/1', policy: 'oracle', datasetId: 'd-demo', graphId: 'g-demo', n: 2 });
    expect(lines).toHaveLength(1 + 2 * qas);
  });

  it('the runner reports progress per QA and stops between episodes when cancelled', async () => {
    const progress: JobProgress[] = [];
    const abort = new AbortController();
    const ctx = (jobId: string): JobContext => ({
      jobId,
      home,
      dir: join(home, 'jobs', jobId),
      stream: null,
      signal: abort.signal,
      progress: (p) => progress.push(p),
      log: () => {},
      publish: () => {},
    });
    const { artefact } = await runRollout({ datasetId: 'd-demo', policy: 'oracle' }, ctx('direct-1'));
    const perQa = progress.filter((p) => p.total !== undefined);
    expect(perQa.map((p) => p.done)).toEqual([1, 2, 3]);
    expect(perQa[0]!.message).toMatch(/^QA 1 of 3 \(1\/3 trajectories, \d correct\)$/);
    expect(artefact).toMatchObject({ id: 'direct-1', path: join('trajectories', 'direct-1.jsonl'), info: { graphId: 'g-demo', n: 1 } });

    progress.length = 0;
    const cancelAfterFirst = ctx('direct-2');
    cancelAfterFirst.progress = (p) => {
      progress.push(p);
      if (p.done === 1) abort.abort();
    };
    await expect(runRollout({ datasetId: 'd-demo', policy: 'oracle', n: 2 }, cancelAfterFirst)).rejects.toBeInstanceOf(CancelledError);
    expect(progress.filter((p) => p.total !== undefined)).toHaveLength(1);
    expect(existsSync(join(home, 'trajectories', 'direct-2.jsonl'))).toBe(false);
  });

  it('trajectories.get returns one summary per trajectory, the questions and the eval', async () => {
    const view = (await core.call('trajectories.get', { id: setId })) as TrajSetView;
    const qas = demoQAs();
    expect(view.trajectories).toHaveLength(2 * qas.length);
    expect(view.header.format).toBe('sailor.traj/1');
    const first = view.trajectories[0]!;
    expect(first).toMatchObject({ id: `${qas[0]!.id}/0`, index: 0, qa_id: qas[0]!.id, attempt: 0, policy: 'oracle', termination: 'answer' });
    expect(view.trajectories[1]).toMatchObject({ qa_id: qas[0]!.id, attempt: 1 });
    expect(first.reward.total).toBeGreaterThan(0);
    expect(first.tool_calls).toBeGreaterThan(0);
    expect(first.turns).toBe(first.tool_calls + 1);
    expect(first.tokens.generated).toBeGreaterThan(0);
    expect(Object.keys(view.questions).sort()).toEqual(qas.map((q) => q.id).sort());
    expect(view.questions[qas[0]!.id]).toEqual({ question: qas[0]!.question, answer: qas[0]!.answer, answer_id: qas[0]!.answer_id });
    expect(view.eval?.['pass@1']).toBeGreaterThan(0);
    // Summaries only: no steps travel with the list.
    expect(JSON.stringify(view.trajectories)).not.toContain('"steps"');
  });

  it('trajectories.one returns the trajectory, its QA and the exact text the model saw', async () => {
    const qa = demoQAs()[0]!;
    const d = (await core.call('trajectories.one', { id: setId, trajId: `${qa.id}/1` })) as TrajDetail;
    expect(d.trajectory.id).toBe(`${qa.id}/1`);
    expect(d.qa?.answer).toBe(qa.answer);
    expect(d.datasetId).toBe('d-demo');
    expect(d.graphId).toBe('g-demo');
    const { text, spans } = d.rendered;
    expect(text).toContain(`Question: ${qa.question}`);
    // Spans tile the text in order: prompt first, then think/action(/observation) per step.
    expect(spans[0]).toMatchObject({ kind: 'prompt', start: 0, step: -1 });
    spans.forEach((s, i) => expect(s.start).toBe(i === 0 ? 0 : spans[i - 1]!.end));
    expect(spans.at(-1)!.end).toBe(text.length);
    const obs = spans.filter((s) => s.kind === 'observation');
    expect(obs).toHaveLength(d.trajectory.steps.filter((s) => s.observation !== undefined).length);
    expect(text.slice(obs[0]!.start, obs[0]!.end)).toMatch(/^<tool_response>/);
    const last = spans.at(-1)!;
    expect(last.kind).toBe('action');
    expect(text.slice(last.start, last.end)).toMatch(/^<answer>.*<\/answer>$/);
  });

  it('refuses bad params before a worker starts, with messages that name the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ datasetId: 'd-demo', policy: 'oracle', n: 33 }, /rollout job: invalid params: n:/],
      [{ datasetId: 'd-demo', policy: 'oracle', n: 0 }, /n:/],
      [{ datasetId: 'd-demo', policy: 'random' }, /policy: expected 'oracle', 'base', 'untrained', 'llm:<model>'/],
      // No policy is not the expert: an empty or missing policy is refused, in words that say what to pick.
      [{ datasetId: 'd-demo' }, /policy: choose a policy: the expert \(oracle\), the base model/],
      [{ datasetId: 'd-demo', policy: '' }, /policy: choose a policy/],
      [{ datasetId: 'd-demo', policy: '   ' }, /policy: choose a policy/],
      [{ graphId: 'g-demo', policy: 'oracle' }, /datasetId:/],
      [{ datasetId: 'd-demo', policy: 'oracle', reward: 'judge' }, /judgeModel: reward judge needs a judge model/],
      [{ datasetId: 'd-demo', policy: 'oracle', reward: 'exact' }, /reward:/],
      [{ datasetId: 'd-demo', policy: 'oracle', limit: 0 }, /limit:/],
      [{ datasetId: '../etc', policy: 'oracle', n: 1 }, /datasetId:/],
      [{ datasetId: 'd-demo', policy: 'oracle', extra: 1 }, /extra/],
    ];
    for (const [params, re] of cases) {
      const err = await rejection(core.call('jobs.start', { kind: 'rollout', params }));
      expect(err.code).toBe('bad_request');
      expect(err.message).toMatch(re);
    }
  });

  it('a rollout on a dataset that does not exist fails with a message naming it', async () => {
    const job = (await core.call('jobs.start', { kind: 'rollout', params: { datasetId: 'nope', policy: 'oracle' } })) as JobRecord;
    const done = await waitFor(job.id, ['succeeded', 'failed']);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/no dataset with id 'nope'/);
    expect((await core.call('trajectories.list', {})) as ArtefactRecord[]).toHaveLength(1);
  });

  it('policies that cannot run here fail the job with the reason', async () => {
    const saved = process.env.SAILOR_LLM_URL;
    delete process.env.SAILOR_LLM_URL; // the worker inherits the environment
    try {
      const llm = (await core.call('jobs.start', { kind: 'rollout', params: { datasetId: 'd-demo', policy: 'llm:some-model' } })) as JobRecord;
      const ckpt = (await core.call('jobs.start', { kind: 'rollout', params: { datasetId: 'd-demo', policy: 'ckpt:no-run/5' } })) as JobRecord;
      const [a, b] = await Promise.all([waitFor(llm.id, ['succeeded', 'failed']), waitFor(ckpt.id, ['succeeded', 'failed'])]);
      expect(a.status).toBe('failed');
      expect(a.error).toMatch(/llm:some-model.*SAILOR_LLM_URL/);
      expect(b.status).toBe('failed');
      expect(b.error).toMatch(/no-run/);
    } finally {
      if (saved !== undefined) process.env.SAILOR_LLM_URL = saved;
    }
  });

  it('the base model and an untrained model answer as policies (one question, one tool call)', async () => {
    const jobs = await Promise.all(
      ['base', 'untrained:3'].map((policy) => core.call('jobs.start', { kind: 'rollout', params: { datasetId: 'd-demo', policy, limit: 1, maxToolCalls: 1 } }) as Promise<JobRecord>),
    );
    for (const job of jobs) {
      const done = await waitFor(job.id, ['succeeded', 'failed']);
      expect(done.error ?? '').toBe('');
      const view = (await core.call('trajectories.get', { id: job.id })) as TrajSetView;
      expect(view.trajectories).toHaveLength(1);
      expect(view.trajectories[0]!.policy).toBe(job.params.policy);
    }
  }, 120_000);

  it('limit takes the first N QAs', async () => {
    const job = (await core.call('jobs.start', { kind: 'rollout', params: { datasetId: 'd-demo', policy: 'oracle', limit: 1, reward: 'f1', name: 'one QA' } })) as JobRecord;
    const done = await waitFor(job.id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    const view = (await core.call('trajectories.get', { id: job.id })) as TrajSetView;
    expect(view.artefact.name).toBe('one QA');
    expect(view.trajectories.map((t) => t.qa_id)).toEqual([demoQAs()[0]!.id]);
    expect(view.header).toMatchObject({ limit: 1, reward: 'f1', graphId: 'g-demo' }); // graph taken from the dataset
  });
});

describe('trajectories.* errors and reading', () => {
  it('names bad params and missing ids', async () => {
    const bad: Array<[string, unknown, RegExp]> = [
      ['trajectories.get', {}, /trajectories\.get: invalid params: id:/],
      ['trajectories.get', { id: '' }, /id:/],
      ['trajectories.get', { id: 'a/b' }, /id: letters, digits/],
      ['trajectories.get', { id: 'x', extra: 1 }, /extra/],
      ['trajectories.one', { id: 'x' }, /trajId:/],
      ['trajectories.one', { id: 'x', trajId: 'a b' }, /trajId: letters, digits/],
      ['trajectories.list', { id: 'x' }, /id/],
    ];
    for (const [method, params, re] of bad) {
      const err = await rejection(core.call(method, params));
      expect(err.code).toBe('bad_request');
      expect(err.message).toMatch(re);
    }
    const missing = await rejection(core.call('trajectories.get', { id: 'no-such-set' }));
    expect(missing.code).toBe('not_found');
    expect(missing.message).toBe("no trajectory set with id 'no-such-set'");
    const setId = ((await core.call('trajectories.list', {})) as ArtefactRecord[]).at(-1)!.id;
    const noTraj = await rejection(core.call('trajectories.one', { id: setId, trajId: 'qa-nope/0' }));
    expect(noTraj.code).toBe('not_found');
    expect(noTraj.message).toBe(`trajectory set ${setId} has no trajectory 'qa-nope/0'`);
  });

  it('a set file that is missing or malformed is reported, not crashed on', async () => {
    await register('trajectories', { id: 'gone', name: 'gone', path: join('trajectories', 'gone.jsonl'), info: {} });
    const gone = await rejection(core.call('trajectories.get', { id: 'gone' }));
    expect(gone.code).toBe('not_found');
    expect(gone.message).toContain('missing from the data directory');

    mkdirSync(join(home, 'trajectories'), { recursive: true });
    writeFileSync(join(home, 'trajectories', 'bad.jsonl'), '{"format":"sailor.traj/1"}\n{"id":"t1","qa_id":"q","steps":"no"}\n');
    await register('trajectories', { id: 'bad', name: 'bad', path: join('trajectories', 'bad.jsonl'), info: {} });
    const bad = await rejection(core.call('trajectories.get', { id: 'bad' }));
    expect(bad.code).toBe('bad_input');
    expect(bad.message).toMatch(/bad\.jsonl:2: steps: steps must be an array/);

    writeFileSync(join(home, 'trajectories', 'qa.jsonl'), '{"format":"sailor.qa/1"}\n');
    await register('trajectories', { id: 'wrongfmt', name: 'w', path: join('trajectories', 'qa.jsonl'), info: {} });
    expect((await rejection(core.call('trajectories.get', { id: 'wrongfmt' }))).message).toMatch(/expected format 'sailor\.traj\/1', got 'sailor\.qa\/1'/);
  });

  it('reads an imported set without a dataset, fills in attempts and ids, and re-reads it when it changes', async () => {
    const file = join(home, 'trajectories', 'imported.jsonl');
    const traj = (id: string | undefined, qa: string, answer: number) => ({
      ...(id ? { id } : {}),
      qa_id: qa,
      policy: 'llm:test',
      steps: [
        { think: 'look', action: { name: 'search', arguments: { query: ['x'] } }, observation: 'line 1\nline 2' },
        { think: 'done', action: { name: 'answer', arguments: { answer: 'Y' } } },
      ],
      prediction: 'Y',
      termination: 'answer',
      reward: { format: 1, answer, total: 0.1 + 0.9 * answer },
      tool_calls: 1,
      tokens: { generated: 20, observation: 8 },
    });
    writeFileSync(file, [traj('a', 'q1', 1), traj('a', 'q1', 0), traj(undefined, 'q2', 0)].map((t) => JSON.stringify(t)).join('\n') + '\n');
    await register('trajectories', { id: 'imported', name: 'imported', path: join('trajectories', 'imported.jsonl'), info: { datasetId: 'gone-dataset' } });
    const view = (await core.call('trajectories.get', { id: 'imported' })) as TrajSetView;
    expect(view.header).toEqual({});
    expect(view.questions).toEqual({});
    expect(view.trajectories.map((t) => [t.id, t.attempt, t.turns])).toEqual([
      ['a', 0, 2],
      ['a#1', 1, 2],
      ['q2/0', 0, 2],
    ]);
    expect(view.eval).toMatchObject({ questions: 2, samples: 3, 'pass@1': 0.25 });
    const one = (await core.call('trajectories.one', { id: 'imported', trajId: 'a#1' })) as TrajDetail;
    expect(one.qa).toBeNull();
    expect(one.trajectory.reward.answer).toBe(0);
    expect(one.rendered.spans.map((s) => s.kind)).toEqual(['prompt', 'think', 'action', 'observation', 'think', 'action']);

    // A rewritten file is read again (mtime cache), not served stale.
    writeFileSync(file, JSON.stringify(traj('only', 'q9', 1)) + '\n');
    const later = statSync(file).mtimeMs / 1000 + 5;
    utimesSync(file, later, later);
    const again = (await core.call('trajectories.get', { id: 'imported' })) as TrajSetView;
    expect(again.trajectories.map((t) => t.id)).toEqual(['only']);
  });
});

describe('store', () => {
  it('an older db.json without a trajectories collection gets an empty one', () => {
    const data = checkStoreData('db.json', { format: 'sailor.store', version: 1, graphs: [], jobs: [] });
    expect(data.trajectories).toEqual([]);
  });
});
