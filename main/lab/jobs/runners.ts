// The code behind each job kind, loaded only inside worker threads. Imports are dynamic so a worker
// pays only for the job it runs.
import type { JobRunner } from './context';

export const jobRunners: Record<string, () => Promise<JobRunner>> = {
  demo: async () => (await import('./demo')).runDemo,
  'kg.build': async () => (await import('./lab-jobs')).runKgBuild,
  synth: async () => (await import('./lab-jobs')).runSynth,
  rollout: async () => (await import('./rollout-job')).runRollout,
  compare: async () => (await import('../train/compare-job')).runCompare,
  train: async () => (await import('../train/sft-job')).runTrain,
  estimate: async () => (await import('../train/estimate')).runEstimate,
};
