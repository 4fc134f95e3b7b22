// What a new user's second walk through the app needed (issue 35): a run trained further continues its parent's
// step count on the dashboard (stepAxis.ts), an imported verl run is described as what it is (importedRun.ts),
// and Compare's empty form picks its questions by the datasets' recorded roles, with counts that agree (questionSet.ts).
import { describe, expect, it } from 'vitest';
import type { ArtefactRecord, DatasetInfo, RunSummary } from '@contract';
import { parseRunCheckpoint, shiftSteps, stepOffsets } from '../../renderer/src/components/runs/stepAxis';
import { IMPORTED_RUN, LAB_RUN, originOf } from '../../renderer/src/components/runs/importedRun';
import { RL_CHARTS } from '../../renderer/src/components/runs/rlView';
import { defaultQuestionCount, defaultQuestionSet, heldOutIds } from '../../renderer/src/components/compare/questionSet';

const run = (id: string, lastStep: number, config: Record<string, unknown> = {}, verl?: Record<string, string>): RunSummary =>
  ({ artefact: { id, name: id, path: `runs/${id}`, createdAt: '', info: { config, ...(verl ? { verl } : {}) } }, status: 'finished', seconds: 0, lastStep, metrics: {} }) as unknown as RunSummary;
const byId = (...runs: RunSummary[]): Map<string, RunSummary> => new Map(runs.map((r) => [r.artefact.id, r]));

describe('one step axis for runs that continue each other', () => {
  it('reads checkpoint references', () => {
    expect(parseRunCheckpoint('run-a/3040')).toEqual({ runId: 'run-a', step: 3040 });
    expect(parseRunCheckpoint('ckpt:run-a/last')).toEqual({ runId: 'run-a', step: 'last' });
    expect(parseRunCheckpoint('/home/me/model.ckpt')).toBeNull();
  });

  it('puts a child after the checkpoint it started from, and a grandchild after that', () => {
    const parent = run('p', 3040);
    const child = run('c', 40, { init: { checkpoint: 'p/3040' } });
    const grandchild = run('g', 40, { init: { checkpoint: 'c/last' } });
    const early = run('e', 10, { init: { checkpoint: 'p/1000' } });
    const offsets = stepOffsets(byId(parent, child, grandchild, early));
    expect(Object.fromEntries(offsets)).toEqual({ p: 0, c: 3040, g: 3080, e: 1000 });
    expect(shiftSteps([1, 2, 40], offsets.get('c')!)).toEqual([3041, 3042, 3080]);
  });

  it('leaves runs from a file, a deleted run or a cycle at 0', () => {
    const fromFile = run('f', 5, { init: { checkpoint: '/tmp/model/ckpt' } });
    const orphan = run('o', 5, { init: { checkpoint: 'gone/100' } });
    const a = run('a', 5, { init: { checkpoint: 'b/5' } });
    const b = run('b', 5, { init: { checkpoint: 'a/5' } });
    const offsets = stepOffsets(byId(fromFile, orphan, a, b));
    expect([offsets.get('f'), offsets.get('o')]).toEqual([0, 0]);
    expect(Number.isFinite(offsets.get('a')!) && Number.isFinite(offsets.get('b')!)).toBe(true);
    const same = [1, 2];
    expect(shiftSteps(same, 0)).toBe(same);
  });
});

describe('an imported verl run described as what it is', () => {
  const chart = (id: string) => RL_CHARTS.find((c) => c.id === id)!;

  it('never speaks of zero-std groups or synchronous RL for verl metrics', () => {
    expect(originOf(run('v', 3, {}, { metrics: '/x/metrics.jsonl' }))).toBe(IMPORTED_RUN);
    expect(originOf(run('l', 3))).toBe(LAB_RUN);
    expect(IMPORTED_RUN.emptyNote(chart('rl-clipfrac'))).toBe('not in the imported verl metrics');
    expect(IMPORTED_RUN.emptyNote(chart('rl-staleness'))).toMatch(/not in verl’s metrics/);
    expect(IMPORTED_RUN.emptyNote(chart('rl-pass1'))).toBe('no validation score in the imported metrics');
    expect(LAB_RUN.emptyNote(chart('rl-clipfrac'))).toBeNull();
  });

  it('promises a click only where something was imported behind the point', () => {
    const none = { rollouts: false, validation: false };
    expect(IMPORTED_RUN.pickNote(chart('rl-reward'), none)).toBeNull();
    expect(IMPORTED_RUN.pickNote(chart('rl-pass1'), none)).toBeNull();
    expect(IMPORTED_RUN.pickNote(chart('rl-reward'), { rollouts: true, validation: false })).toBe('click a point: that step’s rollouts');
    expect(IMPORTED_RUN.pickNote(chart('rl-pass1'), { rollouts: true, validation: true })).toBe('click a point: its validation generations');
    expect(IMPORTED_RUN.noCheckpoints).toMatch(/verl/);
    // A click opens only what was imported behind the point; a lab run's points all open.
    expect(IMPORTED_RUN.opensRollouts([])).toBe(false);
    expect(IMPORTED_RUN.evalSteps([20], [10, 20, 30])).toEqual([20]);
    expect(LAB_RUN.evalSteps([], [10, 20, 30])).toEqual([10, 20, 30]);
  });
});

describe("Compare's empty form", () => {
  const ds = (id: string, params: Record<string, unknown> | undefined, published?: number): ArtefactRecord<DatasetInfo> =>
    ({ id, name: id, path: '', createdAt: '', info: { ...(params ? { params } : {}), ...(published ? { stats: { published } } : {}) } }) as unknown as ArtefactRecord<DatasetInfo>;
  // Newest first, as the store lists them: a fresh ASearcher training set, then a held-out set of 200.
  const fresh = ds('asearcher', { generator: 'asearcher', count: 300 }, 300);
  const held = ds('held', { count: 300, excludeDatasetId: 'train' }, 200);
  const train = ds('train', { count: 1600 }, 1600);

  it('preselects a held-out set by its recorded role, not the newest set', () => {
    expect([...heldOutIds([fresh, held, train], [])]).toEqual(['held']);
    expect(defaultQuestionSet(null, [fresh, held, train], [])).toBe('held');
    expect(defaultQuestionSet('train', [fresh, held, train], [])).toBe('train'); // a run's own held-out set wins
    expect(defaultQuestionSet(null, [fresh, train], [])).toBe(''); // nothing recorded as held out: the user picks
    // A run that uses a set as its held-out questions makes it one.
    expect([...heldOutIds([fresh, train], [{ id: 'r', name: 'r', data: { heldOutDatasetId: 'asearcher' } }])]).toEqual(['asearcher']);
  });

  it('counts the questions the set holds (what synthesis published), as its summary does', () => {
    expect(defaultQuestionCount([fresh, held], 'held')).toBe(200);
    expect(defaultQuestionCount([fresh, held], 'nope')).toBeNull();
  });
});
