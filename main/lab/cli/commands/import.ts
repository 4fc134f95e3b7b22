// `sailor import verl`: a run trained with verl as a lab run (runs/verl-import.ts, docs/verl.md 'Back into the
// lab'), through the same `runs.importVerl` the app's "Import a verl run" button calls.
import { LabCore } from '../../app/core';
import { defaultHome } from '../../base/home';
import { type CliCommand, type CliIO, flag, optString, reqString, sharedOptions, untilSignal } from '../command';

/**
 * Reads on until Ctrl+C or SIGTERM (then one last read, exit 0) or until following fails (exit 1, the error
 * said). Every step imported, and every note on the files (truncated, rotated), goes to stderr.
 */
async function followUntilStopped(core: LabCore, runId: string, io: CliIO): Promise<number> {
  io.err('following the files; Ctrl+C stops\n');
  core.runs.onFollowNotice((id, message) => id === runId && io.err(`${message}\n`));
  const off = core.on('run.metrics', (e) => {
    if (e.runId === runId) for (const r of e.records) io.err(`step ${r.step}: ${Object.keys(r.metrics).length} metrics\n`);
  });
  const waiting = new AbortController();
  try {
    const how = await Promise.race([untilSignal(waiting.signal).then((signal) => ({ signal })), core.runs.followEnded(runId).then((error) => ({ error }))]);
    const error = 'signal' in how ? await core.runs.stopFollowing(runId) : how.error;
    const lastStep = core.runs.get(runId).lastStep;
    if (error !== null) {
      io.err(`following stopped: ${error}\nrun ${runId} keeps the steps up to ${lastStep}; import again with --follow to read on\n`);
      return 1;
    }
    io.err(`stopped following (${'signal' in how ? how.signal : 'done'}); run ${runId} keeps the steps up to ${lastStep}\n`);
    return 0;
  } finally {
    waiting.abort();
    off();
  }
}

const importVerl: CliCommand = {
  path: ['import', 'verl'],
  summary: "a verl run as a lab run: its metrics file (charts), rollout and validation dumps or the exported tools' episodes (trajectories)",
  usage: 'import verl --metrics FILE.jsonl [--rollouts DIR] [--validation DIR] [--episodes FILE] [--name N] [--follow]',
  options: {
    metrics: { type: 'string', description: "verl's trainer.logger=file output ($VERL_FILE_LOGGER_PATH)" },
    rollouts: { type: 'string', description: "verl's trainer.rollout_data_dir: {step}.jsonl generations" },
    validation: { type: 'string', description: "verl's trainer.validation_data_dir: the evaluations" },
    episodes: { type: 'string', description: "the exported tools' episode file (exact turn boundaries)" },
    name: { type: 'string', description: "the run's name (default: verl · <experiment>)" },
    follow: { type: 'boolean', description: 'keep reading as the files grow, until Ctrl+C' },
    ...sharedOptions.home(),
  },
  async run(ctx) {
    const core = await LabCore.open({ home: optString(ctx, 'home') ?? defaultHome(), detectBackend: false });
    const follow = flag(ctx, 'follow');
    try {
      const params: Record<string, unknown> = { metrics: reqString(ctx, 'metrics'), follow };
      for (const k of ['rollouts', 'validation', 'episodes', 'name']) if (optString(ctx, k) !== undefined) params[k] = optString(ctx, k);
      const run = (await core.call('runs.importVerl', params)) as Awaited<ReturnType<LabCore['runs']['importVerl']>>;
      const detail = core.runs.get(run.artefact.id);
      ctx.io.out(`${run.artefact.id}\n`);
      ctx.io.err(
        `imported '${run.artefact.name}': ${Object.keys(run.metrics).length} metrics up to step ${run.lastStep}, ` +
          `${detail.rlSteps.length} rollout steps, ${detail.evals.length} evaluations\n`,
      );
      if (!follow) return;
      return await followUntilStopped(core, run.artefact.id, ctx.io);
    } finally {
      await core.close();
    }
  },
};

export const importCommands: CliCommand[] = [importVerl];
