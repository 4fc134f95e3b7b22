// `sailor import verl`: a run trained with verl as a lab run (runs/verl-import.ts, docs/verl.md 'Back into the
// lab'), through the same `runs.importVerl` the app's "Import a verl run" button calls.
import { LabCore } from '../../app/core';
import { defaultHome } from '../../base/home';
import { type CliCommand, flag, optString, reqString, untilSignal } from '../command';

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
    home: { type: 'string', description: 'data directory (default: $SAILOR_HOME or ~/.sailor-lab)' },
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
      ctx.io.err('following the files; Ctrl+C stops\n');
      const off = core.on('run.metrics', ({ runId, records }) => {
        if (runId === run.artefact.id) for (const r of records) ctx.io.err(`step ${r.step}: ${Object.keys(r.metrics).length} metrics\n`);
      });
      await untilSignal();
      off();
    } finally {
      await core.close();
    }
  },
};

export const importCommands: CliCommand[] = [importVerl];
