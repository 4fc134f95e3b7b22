// `sailor train`: a training run headless, through the same lab core and worker job as the app, so the
// run appears in the app's Runs list with its metrics, checkpoints and evaluations.
import type { CliCommand } from '../command';
import { optString, printResult, usageError } from '../command';
import { LabCore } from '../../core';
import { defaultHome } from '../../home';
import { readJsonFile } from '../../store/files';
import { importArtefact } from '../../store/import';
import { inputError } from '../../errors';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { JobRecord, RunSummary } from '../../contract';

/** Waits for a job to end, echoing its progress to stderr (one line per message change). */
function follow(core: LabCore, jobId: string, err: (t: string) => void): Promise<JobRecord> {
  return new Promise((resolve) => {
    let last = '';
    const off = core.on('job.updated', (job) => {
      if (job.id !== jobId) return;
      if (job.progress.message !== last) {
        last = job.progress.message;
        err(`[${Math.round(job.progress.fraction * 100)}%] ${last}\n`);
      }
      if (job.status !== 'running') {
        off();
        resolve(job);
      }
    });
  });
}

/**
 * Reads the config; `data.graphFile`, `data.datasetFile` and `data.heldOutFile` (paths relative to the
 * config file) are validated, imported into the store, and replaced by the ids a run config names.
 */
async function withImportedData(core: LabCore, configPath: string): Promise<Record<string, unknown>> {
  const config = readJsonFile(configPath);
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw inputError(configPath, 'expected a JSON object');
  const data = { ...((config as { data?: Record<string, unknown> }).data ?? {}) };
  const fileOf = (key: string): string | undefined => {
    const v = data[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v === '') throw inputError(configPath, 'expected a file path', { field: `data.${key}` });
    delete data[key];
    const file = resolve(dirname(configPath), v);
    if (!existsSync(file)) throw inputError(configPath, `${file}: no such file`, { field: `data.${key}` });
    return file;
  };
  const graphFile = fileOf('graphFile');
  const datasetFile = fileOf('datasetFile');
  const heldOutFile = fileOf('heldOutFile');
  if (graphFile) data.graphId = (await importArtefact(core.db, core.home, 'graphs', graphFile)).id;
  if (datasetFile) data.datasetId = (await importArtefact(core.db, core.home, 'datasets', datasetFile, { graphId: data.graphId })).id;
  if (heldOutFile) data.heldOutDatasetId = (await importArtefact(core.db, core.home, 'datasets', heldOutFile, { graphId: data.graphId })).id;
  return { ...(config as Record<string, unknown>), data };
}

const train: CliCommand = {
  path: ['train'],
  summary: 'runs a training run (RFT data, tokenizer, SFT, then RL with an `rl` section; evaluation, checkpoints) headless, into the same run store as the app',
  usage: 'train --config C.json | train --resume RUN_ID',
  options: {
    config: { type: 'string', description: 'run config JSON (see main/lab/contract/run-config.ts; data ids come from the app or `sailor kg build`/`synth` jobs)' },
    resume: { type: 'string', description: 'continue an interrupted run from its last checkpoint' },
    json: { type: 'boolean', description: 'print the run summary as JSON' },
  },
  async run(ctx) {
    const configPath = optString(ctx, 'config');
    const resumeId = optString(ctx, 'resume');
    if (!configPath === !resumeId) throw usageError('give exactly one of --config C.json or --resume RUN_ID');
    const core = await LabCore.open({ home: defaultHome(), detectBackend: false });
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      ctx.io.err('stopping: the run is marked interrupted; resume it with --resume\n');
      void core.close().then(() => process.exit(130));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      const started = (resumeId
        ? await core.call('runs.resume', { id: resumeId })
        : await core.call('runs.start', { config: await withImportedData(core, configPath!) })) as RunSummary;
      ctx.io.err(`run ${started.artefact.id}: ${started.artefact.name}\n`);
      const job = await follow(core, started.jobId!, ctx.io.err);
      const summary = core.runs.get(started.artefact.id);
      printResult(ctx, summary, () =>
        [
          `run ${summary.artefact.id} ${summary.status} at step ${summary.lastStep}${job.error ? `: ${job.error}` : ''}`,
          ...Object.entries(summary.metrics)
            .filter(([k]) => /loss|pass@|tool_calls|reward\/mean/.test(k))
            .map(([k, v]) => `  ${k.padEnd(28)} last ${v.last.toFixed(4)}  best ${v.best.toFixed(4)}`),
          `  checkpoints: ${summary.checkpoints.map((c) => c.ref).join(', ') || 'none'}`,
        ].join('\n'),
      );
      return summary.status === 'finished' ? 0 : 1;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await core.close();
    }
  },
};

export const trainCommands: CliCommand[] = [train];
