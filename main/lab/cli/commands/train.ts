// `sailor train`: a training run headless, through the same lab core and worker job as the app, so the
// run appears in the app's Runs list with its metrics, checkpoints and evaluations.
import type { CliCommand } from '../command';
import { optInt, optString, printResult, progressLine, reqString, sharedOptions, usageError } from '../command';
import { readGraphFile } from '../../kg/io';
import { pretrain, PRETRAIN_DEFAULTS } from '../../train/pretrain/pretrain';
import { LabCore } from '../../app/core';
import { defaultHome } from '../../base/home';
import { readJsonFile } from '../../store/files';
import { importArtefact } from '../import';
import { inputError } from '../../base/errors';
import { graphMismatch, readDataset } from '../../synth/dataset';
import { buildQueryIndex } from '../../synth/query-index';
import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
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
 * Refuses, before anything is imported or started, a question set made on another graph than the config's: its
 * header names the graph it was made on, and its queries do not give their answers on this one.
 */
function refuseOtherGraphs(configPath: string, graphFile: string, sets: Record<string, string | undefined>): void {
  const files = Object.entries(sets).filter((e): e is [string, string] => e[1] !== undefined);
  if (!files.length) return;
  const index = buildQueryIndex(readGraphFile(graphFile));
  for (const [key, file] of files) {
    const { header, qas } = readDataset(file);
    const miss = graphMismatch(index, qas);
    if (!miss) continue;
    const madeOn = typeof header.graph === 'string' ? `graph ${JSON.stringify(header.graph)} (its header)` : 'another graph';
    throw inputError(
      configPath,
      `${file} was made on ${madeOn}, not on data.graphFile ${graphFile}: ${miss.failed} of ${miss.checked} of its questions checked do not have their answer on that graph. ` +
        'Use the graph the questions were synthesised on, or synthesise questions on this one (sailor synth --graph)',
      { field: `data.${key}` },
    );
  }
}

/**
 * Reads the config; `data.graphFile`, `data.datasetFile`, `data.heldOutFile`, `data.rlFile` and `data.trajectoriesFile` (paths relative to the
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
  const rlFile = fileOf('rlFile');
  const trajectoriesFile = fileOf('trajectoriesFile');
  // Named by the key a CLI config uses (the schema's own message would say data.datasetId, which it never had).
  if (!datasetFile && data.datasetId === undefined) throw inputError(configPath, 'missing: the training questions, a sailor.qa/1 file (path relative to this config), or data.datasetId', { field: 'data.datasetFile' });
  if (!graphFile && data.graphId === undefined) throw inputError(configPath, 'missing: the graph, a sailor.graph/1 file (path relative to this config), or data.graphId', { field: 'data.graphFile' });
  if (graphFile) refuseOtherGraphs(configPath, graphFile, { datasetFile, heldOutFile, rlFile });
  if (graphFile) data.graphId = (await importArtefact(core.db, core.home, 'graphs', graphFile)).id;
  if (datasetFile) data.datasetId = (await importArtefact(core.db, core.home, 'datasets', datasetFile, { graphId: data.graphId })).id;
  if (heldOutFile) data.heldOutDatasetId = (await importArtefact(core.db, core.home, 'datasets', heldOutFile, { graphId: data.graphId })).id;
  if (rlFile) data.rlDatasetId = (await importArtefact(core.db, core.home, 'datasets', rlFile, { graphId: data.graphId })).id;
  if (trajectoriesFile) data.trajectoriesId = (await importArtefact(core.db, core.home, 'trajectories', trajectoriesFile)).id;
  return { ...(config as Record<string, unknown>), data };
}

const train: CliCommand = {
  path: ['train'],
  summary: 'runs a training run (RFT data, tokenizer, SFT, then RL with an `rl` section; evaluation, checkpoints) headless, into the same run store as the app',
  usage: 'train --config C.json | train --resume RUN_ID',
  options: {
    config: { type: 'string', description: 'run config JSON (see main/lab/contract/run-config.ts; data ids come from the app or `sailor kg build`/`synth` jobs)' },
    resume: { type: 'string', description: 'continue an interrupted run from its last checkpoint' },
    ...sharedOptions.json('the run summary'),
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

const pretrainCommand: CliCommand = {
  path: ['pretrain'],
  summary: 'pre-trains a base model (causal LM on the simulated web of the bundled knowledge base and expert ReAct episodes) into a checkpoint directory',
  usage: 'pretrain --out DIR [--steps N] [--rng S] [--episodes N] [--graph G.json] [--hold-out G.json[,G2.json]] [--n-layer L --n-embd E --n-head H] [--block-size T] [--workers N] [--json]',
  options: {
    out: { type: 'string', description: 'the checkpoint directory to write (replaced if it exists)' },
    steps: { type: 'string', description: 'optimiser steps', default: String(PRETRAIN_DEFAULTS.steps) },
    rng: { type: 'string', description: 'seed of the lookups, the episodes, the weights and the batches', default: String(PRETRAIN_DEFAULTS.rng) },
    episodes: { type: 'string', description: 'lookups synthesised for the expert episodes', default: String(PRETRAIN_DEFAULTS.episodes) },
    ...sharedOptions.graph('pre-train on the simulated web of this graph file instead of the whole bundled knowledge base'),
    'hold-out': { type: 'string', description: 'graph files (comma-separated) whose edges no episode may ask about: the graphs held-out questions come from' },
    workers: { type: 'string', description: 'threads sharing each batch (0: every core)', default: '0' },
    'n-layer': { type: 'string', description: 'transformer blocks', default: String(PRETRAIN_DEFAULTS.model.nLayer) },
    'n-embd': { type: 'string', description: 'width', default: String(PRETRAIN_DEFAULTS.model.nEmbd) },
    'n-head': { type: 'string', description: 'attention heads (must divide the width)', default: String(PRETRAIN_DEFAULTS.model.nHead) },
    'block-size': { type: 'string', description: "context length in tokens (the preset's when left out)" },
    ...sharedOptions.json('the manifest'),
  },
  async run(ctx) {
    const out = resolve(reqString(ctx, 'out'));
    const graphFile = optString(ctx, 'graph');
    const holdOut = (optString(ctx, 'hold-out') ?? '').split(',').map((f) => f.trim()).filter(Boolean).map((f) => ({ name: basename(f), graph: readGraphFile(f) }));
    const manifest = await pretrain(
      {
        ...PRETRAIN_DEFAULTS,
        out,
        steps: optInt(ctx, 'steps', PRETRAIN_DEFAULTS.steps, { min: 1, max: 10_000_000 }),
        rng: optInt(ctx, 'rng', PRETRAIN_DEFAULTS.rng, { min: 0, max: 0xffffffff }),
        episodes: optInt(ctx, 'episodes', PRETRAIN_DEFAULTS.episodes, { min: 0, max: 1_000_000 }),
        workers: optInt(ctx, 'workers', 0, { min: 0, max: 64 }),
        model: {
          ...PRETRAIN_DEFAULTS.model,
          nLayer: optInt(ctx, 'n-layer', PRETRAIN_DEFAULTS.model.nLayer, { min: 1, max: 48 }),
          nEmbd: optInt(ctx, 'n-embd', PRETRAIN_DEFAULTS.model.nEmbd, { min: 8, max: 4096 }),
          nHead: optInt(ctx, 'n-head', PRETRAIN_DEFAULTS.model.nHead, { min: 1, max: 64 }),
          ...(optString(ctx, 'block-size') !== undefined ? { blockSize: optInt(ctx, 'block-size', 0, { min: 32, max: 8192 }) } : {}),
        },
        holdOut,
        ...(graphFile ? { source: { name: basename(graphFile), graph: readGraphFile(graphFile) } } : {}),
      },
      { progress: progressLine(ctx.io, 'pretrain'), log: (m) => ctx.io.err(`pretrain: ${m}\n`) },
    );
    printResult(ctx, manifest, () => `pretrain: wrote ${out} (step ${manifest.step}, loss ${manifest.metrics['pretrain/loss']?.toFixed(3)})`);
  },
};

export const trainCommands: CliCommand[] = [train, pretrainCommand];
