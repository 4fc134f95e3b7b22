// Phases 2 and 3 of the train job (train-job.ts), made once per run (a resumed run reuses their files):
//   RFT      the attempts at the training questions: the expert's rollouts (config.rft), or with
//            data.trajectoriesId a policy's own samples (rejection fine-tuning); plus renamed episodes
//   filter   rejection sampling (agent/rft.ts): the correct, well-formed attempts are the RFT data,
//            data/rft.jsonl, with what was removed and why in data/rft-report.json
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../../base/errors';
import type { Trajectory } from '../../formats';
import { writeJsonAtomic } from '../../store/files';
import { datasetFile } from '../../store/layout';
import { writeTrajectorySet } from '../../store/traj-set';
import { readDataset } from '../../synth/dataset';
import type { PolicyFactory } from '../../agent/policies';
import { rolloutDataset, rolloutOne } from '../../agent/rollout';
import { filterTrajectories, type RftReport } from '../../agent/rft';
import { readTrajectories } from '../../agent/data';
import { throwIfCancelled } from '../../jobs/context';
import { dataDir, rftFile } from '../../runs/layout';
import { ownSamples } from '../sft/rft-source';
import { renamedRollouts } from '../sft/renamed-episodes';
import { webOptions, type RunData, type RunInputs } from './data-phase';

/** The RFT data a run trains on, and the filter's report. */
export interface RftData {
  trajs: Trajectory[];
  report: RftReport;
}

const reportFile = (home: string, runId: string): string => join(dataDir(home, runId), 'rft-report.json');

/** The run's RFT data: made by the RFT and filter phases, unless a resumed run has it already. */
export async function rftPhase(run: RunInputs, data: RunData, expert: PolicyFactory): Promise<RftData> {
  const { ctx, runId } = run;
  const file = rftFile(ctx.home, runId);
  if (!existsSync(file)) filterPhase(run, await rftAttempts(run, data, expert));
  else run.clock?.skip('rft');
  return { trajs: readTrajectories(file), report: JSON.parse(readFileSync(reportFile(ctx.home, runId), 'utf8')) as RftReport };
}

/**
 * Every attempt the RFT data is chosen from. Before step 0 the bar stays at 0; the message counts the expert's
 * rollouts.
 */
async function rftAttempts(run: RunInputs, data: RunData, expert: PolicyFactory): Promise<Trajectory[]> {
  const { ctx, config } = run;
  const training = { datasetId: config.data.datasetId, qas: data.trainQas };
  const all = config.data.trajectoriesId !== undefined ? ownSamples(ctx.home, config.data.trajectoriesId, training, (m) => ctx.log(`warning: ${m}`)) : await expertRollouts(run, data, expert);
  if (config.renamed.copies > 0) {
    // The held-out set whole (not only the evaluated slice): none of its names may enter a renamed world.
    const protect = readDataset(datasetFile(ctx.home, config.data.heldOutDatasetId)).qas;
    const input = { graph: data.graph, train: data.trainQas, protect, config, web: webOptions(config), limits: data.limits };
    all.push(...(await renamedRollouts(input, (k, n) => ctx.progress({ fraction: 0, message: `renamed episodes: world ${k} of ${n}` }))));
  }
  return all;
}

/** The expert's attempts at every training question (config.rft), the RFT data's usual source. */
async function expertRollouts(run: RunInputs, data: RunData, expert: PolicyFactory): Promise<Trajectory[]> {
  const { ctx, config, clock } = run;
  const { trainQas, tools, limits } = data;
  const progress = (_f: number, message: string): void => ctx.progress({ fraction: 0, message });
  const total = trainQas.length * (config.rft.attempts + (config.rft.forcedAnswers ? 1 : 0));
  clock?.begin('rft');
  const all = await rolloutDataset(trainQas, expert, tools, { n: config.rft.attempts, seed: config.rng, limits }, (done) => {
    clock?.soFar('rft', done);
    progress(done / total, `expert rollouts for RFT data: ${done} of ${total}`);
    throwIfCancelled(ctx);
  });
  if (config.rft.forcedAnswers) {
    // One more attempt per question on a third of the tool-call budget: the runtime then tells the agent
    // to stop and answer, and the kept (correct) ones show the policy what to do at that message.
    const short = { ...limits, maxToolCalls: Math.max(1, Math.floor(config.env.maxToolCalls / 3)) };
    for (const qa of trainQas) {
      all.push(await rolloutOne(qa, config.rft.attempts, expert, tools, { n: 1, seed: config.rng, limits: short }));
      clock?.soFar('rft', all.length);
      progress(all.length / total, `expert rollouts for RFT data: ${all.length} of ${total}`);
      throwIfCancelled(ctx);
    }
  }
  return all;
}

/** Rejection sampling: keeps the attempts that pass config.rft's filters and writes them with the report. */
function filterPhase(run: RunInputs, all: Trajectory[]): void {
  const { ctx, runId, config } = run;
  const { kept, report } = filterTrajectories(all, { attempts: config.rft.attempts, minToolCalls: config.rft.minToolCalls, maxTokens: config.rft.maxTokens });
  if (kept.length === 0) throw new LabError('conflict', `RFT kept no trajectory (${JSON.stringify(report.removed)}); relax rft.minToolCalls or use more QAs`);
  writeJsonAtomic(reportFile(ctx.home, runId), report, true);
  writeTrajectorySet(rftFile(ctx.home, runId), { kind: 'rft', report, ...(config.data.trajectoriesId !== undefined ? { from: config.data.trajectoriesId } : {}) }, kept);
}
