// The wizard's duration estimate: the `estimate` job's result (train/act/estimate.ts computes it).
import { z } from 'zod';
import type { StageKey } from './run-timeline';

/** What the warm-up measured, in seconds. */
export interface RunMeasurements {
  backend: string;
  /** One optimiser step: batchSize windows of blockSize tokens, forward + backward + AdamW. */
  stepSeconds: number;
  /** One policy turn: a full-context prefill and a typical turn's generated tokens with the KV cache. */
  turnSeconds: number;
  /** One expert rollout for the RFT data. */
  rolloutSeconds: number;
  /** Turns per expert trajectory: a policy trained to imitate it takes about as many. */
  turnsPerTrajectory: number;
  /** BPE training on the run's corpus (measured on a slice, scaled linearly). */
  tokenizerSeconds: number;
  /** Training QAs (RFT rollouts) and held-out QAs (evaluations) the run will use. */
  trainQuestions: number;
  heldOutQuestions: number;
  /** Questions RL draws from (data.rlDatasetId; absent: the training set's): DUPO's filter passes over them. */
  rlQuestions?: number;
  /** The fastest and slowest of the short samples behind stepSeconds and turnSeconds (their medians). */
  spread?: { stepSeconds: [number, number]; turnSeconds: [number, number]; samples: number };
  /** The machine's one-minute load average and its cores when the warm-up ran: other work on the cores slows it. */
  load?: { average: number; cores: number };
}

/** Load per core above which a warm-up's figures are called inflated. */
export const BUSY_LOAD_PER_CORE = 1;

/**
 * A warm-up measured while other work held the cores is slower than the run will be once that work is done (the
 * third walk: the same config 23 min, then 49 min a minute later; other presets at 3× their real time while a run
 * trained). Null on a machine not busier than its cores.
 */
export function busyNote(m: Pick<RunMeasurements, 'load'>): string | null {
  const l = m.load;
  if (!l || l.cores <= 0 || l.average <= l.cores * BUSY_LOAD_PER_CORE) return null;
  return `measured while the machine was busy (load ${l.average.toFixed(1)} on ${l.cores} cores): likely inflated, by up to ${(l.average / l.cores).toFixed(1)}× if that work ends; a run re-estimates from its own pace after its first steps`;
}

const seconds = z.number().finite().nonnegative();
/** RunMeasurements as `runs.start` takes them: the run re-estimates its stages from them until it has measured its own. */
export const runMeasurementsSchema = z.object({
  backend: z.string().max(40),
  stepSeconds: seconds,
  turnSeconds: seconds,
  rolloutSeconds: seconds,
  turnsPerTrajectory: seconds,
  tokenizerSeconds: seconds,
  trainQuestions: z.number().int().nonnegative(),
  heldOutQuestions: z.number().int().nonnegative(),
  rlQuestions: z.number().int().nonnegative().optional(),
  spread: z.object({ stepSeconds: z.tuple([seconds, seconds]), turnSeconds: z.tuple([seconds, seconds]), samples: z.number().int().positive() }).optional(),
  load: z.object({ average: seconds, cores: z.number().int().positive() }).optional(),
});

export interface EstimatePart {
  stage: 'sft' | 'rl';
  /** The run-timeline stage whose time this part is (run-timeline.ts): a running run re-estimates by it. */
  key: StageKey;
  label: string;
  seconds: number;
  detail: string;
}

export interface RunEstimate {
  totalSeconds: number;
  parts: EstimatePart[];
  measured: RunMeasurements;
  /** The total with every sample at its fastest and at its slowest (measured.spread); absent without a spread. */
  range?: [number, number];
  /** One line on where the figures come from. */
  basis: string;
}
