// The wizard's duration estimate: the `estimate` job's result (train/act/estimate.ts computes it).

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

export interface EstimatePart {
  stage: 'sft' | 'rl';
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
