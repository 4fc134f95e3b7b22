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
