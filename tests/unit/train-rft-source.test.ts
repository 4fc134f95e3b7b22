// Which dataset a trajectory set was played on (train/sft/rft-source.ts, run config data.trajectoriesId): a set
// names its questions by qa_id only and datasets number their questions alike, so a set whose header records
// another dataset is refused by name, one played on the training set is taken, and one from before the header
// recorded it is taken with one warning. Real files in a temp data directory; the sets come from `sailor
// rollout` (which records the dataset's hash) and from the set writer with older headers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrajectories, readTrajectorySet } from '../../main/lab/agent/data';
import { demoGraph, demoQAs } from '../../main/lab/agent/demo';
import { importArtefact } from '../../main/lab/cli/import';
import { agentCommands } from '../../main/lab/cli/commands/agent';
import { runCli } from '../../main/lab/cli/index';
import type { QA, Trajectory } from '../../main/lab/formats';
import { openStoreDb } from '../../main/lab/store/db';
import { datasetFile } from '../../main/lab/store/layout';
import { datasetSha256, writeTrajectorySet } from '../../main/lab/store/traj-set';
import { writeDataset } from '../../main/lab/synth/dataset';
import { ownSamples } from '../../main/lab/train/sft/rft-source';

const home = mkdtempSync(join(tmpdir(), 'sailor-rft-source-'));
const graph = join(home, 'g.json');
const train = demoQAs();
// Another dataset numbered alike: the same ids, each naming another question (the training set's next one).
const other: QA[] = train.map((q, i) => ({ ...train[(i + 1) % train.length]!, id: q.id }));
const setFile = (id: string): string => join(home, 'trajectories', `${id}.jsonl`);

/** `sailor rollout` of the oracle, once per question of a dataset in the store, into trajectories/<out>.jsonl. */
async function rollout(datasetId: string, out: string): Promise<void> {
  let err = '';
  const code = await runCli(['rollout', '--graph', graph, '--dataset', datasetFile(home, datasetId), '--policy', 'oracle', '--n', '1', '--out', setFile(out)], { out: () => {}, err: (t) => (err += t) }, agentCommands);
  expect(code, err).toBe(0);
}

/** ownSamples for the training set `datasetId`, with the warnings it gave. */
function samples(setId: string, datasetId = 'train', qas: readonly QA[] = train): { trajs: Trajectory[]; warnings: string[] } {
  const warnings: string[] = [];
  const trajs = ownSamples(home, setId, { datasetId, qas }, (m) => warnings.push(m));
  return { trajs, warnings };
}

beforeAll(async () => {
  writeFileSync(graph, JSON.stringify(demoGraph()));
  writeDataset(datasetFile(home, 'train'), { graph: 'g' }, train);
  writeDataset(datasetFile(home, 'other'), { graph: 'g' }, other);
  await rollout('train', 'on-train');
  await rollout('other', 'on-other');
}, 120_000);
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('a trajectory set as RFT data records the dataset it was played on', () => {
  it('sailor rollout writes the dataset path and its content hash into the header', () => {
    const { header } = readTrajectorySet(setFile('on-train'));
    expect(header).toMatchObject({ format: 'sailor.traj/1', dataset: datasetFile(home, 'train'), datasetSha256: datasetSha256(datasetFile(home, 'train')) });
    expect(header!.datasetSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(readTrajectorySet(setFile('on-other')).header!.datasetSha256).not.toBe(header!.datasetSha256);
  });

  it('takes a set played on the training set, without a warning', () => {
    const { trajs, warnings } = samples('on-train');
    expect(trajs.map((t) => t.qa_id).sort()).toEqual(train.map((q) => q.id).sort());
    expect(warnings).toEqual([]);
    // The other set on its own dataset is taken too.
    expect(samples('on-other', 'other', other).trajs).toHaveLength(other.length);
  });

  it('refuses a set played on another dataset, naming both', () => {
    const theirs = datasetSha256(datasetFile(home, 'other')).slice(0, 12);
    const mine = datasetSha256(datasetFile(home, 'train')).slice(0, 12);
    // Without the check every one of its qa_ids would match a training question, each the wrong one.
    expect(readTrajectories(setFile('on-other')).every((t) => train.some((q) => q.id === t.qa_id))).toBe(true);
    expect(() => samples('on-other')).toThrow(`trajectory set on-other was played on dataset ${datasetFile(home, 'other')} (sha256 ${theirs}), not on the training set train (sha256 ${mine})`);
  });

  it('takes a set whose header does not say, warning once', () => {
    const trajs = readTrajectories(setFile('on-train'));
    writeTrajectorySet(setFile('old-header'), { kind: 'eval' }, trajs);
    writeFileSync(setFile('no-header'), trajs.map((t) => JSON.stringify(t)).join('\n') + '\n');
    for (const id of ['old-header', 'no-header']) {
      const { trajs: taken, warnings } = samples(id);
      expect(taken).toHaveLength(trajs.length);
      expect(warnings).toEqual([`trajectory set ${id} does not record the dataset it was played on (no datasetSha256 in its header): its qa_ids are taken as questions of the training set train`]);
    }
  });

  it("checks a rollout job's set from before the hash by the stored dataset its datasetId names", () => {
    const trajs = readTrajectories(setFile('on-other'));
    for (const datasetId of ['train', 'other', 'gone']) writeTrajectorySet(setFile(`job-${datasetId}`), { policy: 'oracle', graphId: 'g', datasetId, n: 1 }, trajs);
    expect(samples('job-train').warnings).toEqual([]);
    expect(() => samples('job-other')).toThrow(/trajectory set job-other was played on dataset other \(sha256 [0-9a-f]{12}\), not on the training set train/);
    expect(samples('job-gone').warnings).toHaveLength(1); // the dataset is no longer in the store: it cannot tell
  });

  it('`sailor train`: a dataset and a set imported from files keep their bytes, so the check holds across the import', async () => {
    const db = await openStoreDb(home);
    const dataset = await importArtefact(db, home, 'datasets', datasetFile(home, 'train'));
    const set = await importArtefact(db, home, 'trajectories', setFile('on-train'));
    expect(samples(set.id, dataset.id).warnings).toEqual([]);
    const wrong = await importArtefact(db, home, 'trajectories', setFile('on-other'));
    expect(() => samples(wrong.id, dataset.id)).toThrow(`trajectory set ${wrong.id} was played on dataset`);
  });
});
