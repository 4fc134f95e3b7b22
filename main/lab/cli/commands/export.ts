// `sailor export verl` and `sailor export sft`: lab data in the shapes verl and TRL train on (docs/verl.md).
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { QA } from '../../formats/index';
import { inputError } from '../../base/errors';
import { readQaDataset, readTrajectories } from '../../agent/data';
import { sftRecord, type SftRecord } from '../../agent/verl-rows';
import { readJsonl, writeFileAtomic } from '../../store/files';
import { dataSourceName, exportVerl } from '../export-verl';
import { pq, type PqType, writeParquetRows } from '../parquet';
import { type CliCommand, optString, printResult, reqString, sharedOptions, usageError } from '../command';

/** The dataset a trajectory set was rolled out on: --dataset, else the path its header records. */
function datasetOfTrajectories(trajFile: string, flagValue: string | undefined): string {
  if (flagValue) return flagValue;
  const first = readJsonl(trajFile).records[0]?.value as { dataset?: unknown } | undefined;
  const recorded = typeof first?.dataset === 'string' ? first.dataset : undefined;
  if (!recorded) throw inputError(trajFile, 'the header names no dataset: pass --dataset D.jsonl (the questions of these trajectories)');
  const path = isAbsolute(recorded) || existsSync(recorded) ? recorded : resolve(dirname(trajFile), recorded);
  if (!existsSync(path)) throw inputError(trajFile, `the header's dataset '${recorded}' does not exist here: pass --dataset D.jsonl`);
  return path;
}

const exportVerlCommand: CliCommand = {
  path: ['export', 'verl'],
  summary: "a dataset as a verl run: train/val Parquet, the lab's tools for `sailor web serve`, its reward, run.sh",
  usage: 'export verl --dataset D.jsonl [--held-out H.jsonl] --out DIR [--web-url URL] [--reward em|f1] [--json]',
  options: {
    dataset: { type: 'string', description: 'the training questions (sailor.qa/1)' },
    'held-out': { type: 'string', description: 'validation questions (default: the first 64 training questions)' },
    out: { type: 'string', description: 'the folder to write' },
    'web-url': { type: 'string', description: 'where the tools reach `sailor web serve`', default: 'http://127.0.0.1:8000' },
    reward: { type: 'string', description: 'answer score of compute_score: em or f1', default: 'em' },
    ...sharedOptions.json(),
  },
  async run(ctx) {
    const dataset = reqString(ctx, 'dataset');
    const reward = optString(ctx, 'reward') ?? 'em';
    if (reward !== 'em' && reward !== 'f1') throw usageError(`--reward must be em or f1, got '${reward}'`);
    const heldOutFile = optString(ctx, 'held-out');
    const webUrl = (optString(ctx, 'web-url') ?? 'http://127.0.0.1:8000').replace(/\/+$/, '');
    if (!/^https?:\/\/[^/\s]+$/.test(webUrl)) throw usageError(`--web-url must be http(s)://host[:port], got '${webUrl}'`);
    const result = exportVerl({
      train: readQaDataset(dataset).qas,
      heldOut: heldOutFile ? readQaDataset(heldOutFile).qas : null,
      out: reqString(ctx, 'out'),
      dataSource: dataSourceName(dataset),
      webUrl,
      reward,
    });
    if (result.valFrom === 'train') ctx.io.err(`no --held-out: val.parquet holds the first ${result.val} training questions\n`);
    printResult(ctx, result, () => `wrote ${result.out}: train ${result.train}, val ${result.val} (${result.valFrom}); ${result.files.join(', ')}\nnext: sailor web serve --graph G.json --port 8000, then ${result.out}/run.sh`);
  },
};

const exportSftCommand: CliCommand = {
  path: ['export', 'sft'],
  summary: 'trajectories as chat messages with role:tool observations, JSON Lines (TRL) or Parquet (verl multi-turn SFT)',
  usage: 'export sft --trajectories T.jsonl --out F.jsonl|F.parquet [--dataset D.jsonl] [--calls content|structured] [--json]',
  options: {
    trajectories: { type: 'string', description: 'sailor.traj/1 trajectories (e.g. from `sailor rft`)' },
    dataset: { type: 'string', description: "their questions (default: the dataset the trajectories' header names)" },
    out: { type: 'string', description: 'F.jsonl: one {messages, qa_id, trajectory_id} per line; F.parquet: the same columns' },
    calls: { type: 'string', description: "content: the lab's exact <tool_call> text in content; structured: tool_calls for the template to render", default: 'content' },
    ...sharedOptions.json(),
  },
  async run(ctx) {
    const trajFile = reqString(ctx, 'trajectories');
    const out = reqString(ctx, 'out');
    const calls = optString(ctx, 'calls') ?? 'content';
    if (calls !== 'content' && calls !== 'structured') throw usageError(`--calls must be content or structured, got '${calls}'`);
    const parquet = /\.parquet$/i.test(out);
    if (parquet && calls === 'structured') throw usageError('--calls structured needs --out F.jsonl: tool arguments differ per tool, and Parquet needs one struct for all');
    const trajs = readTrajectories(trajFile);
    if (trajs.length === 0) throw inputError(trajFile, 'no trajectories to export');
    const datasetFile = datasetOfTrajectories(trajFile, optString(ctx, 'dataset'));
    const byId = new Map<string, QA>(readQaDataset(datasetFile).qas.map((q) => [q.id, q]));
    const records: SftRecord[] = trajs.map((t, i) => {
      const qa = byId.get(t.qa_id);
      if (!qa) throw inputError(trajFile, `trajectory ${i + 1} ('${t.id}') is for question '${t.qa_id}', which ${datasetFile} does not hold`);
      return sftRecord(t, qa.question, calls);
    });
    if (parquet) writeParquetRows(out, SFT_COLUMNS, records as unknown as Array<Record<string, unknown>>);
    else writeFileAtomic(out, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const summary = { out, records: records.length, messages: records.reduce((n, r) => n + r.messages.length, 0), calls };
    printResult(ctx, summary, () => `wrote ${summary.records} conversations (${summary.messages} messages) to ${out}; train on assistant turns only (docs/verl.md)`);
  },
};

/** The Parquet columns of `export sft` (content mode: every message is {role, content}). */
const SFT_COLUMNS: Array<[string, PqType]> = [
  ['messages', pq.list(pq.struct({ role: pq.string, content: pq.string }))],
  ['qa_id', pq.string],
  ['trajectory_id', pq.string],
];

export const exportCommands: CliCommand[] = [exportVerlCommand, exportSftCommand];
