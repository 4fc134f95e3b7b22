// The evaluation phase of the train job (train-job.ts), every `eval.every` SFT steps and after the last: the
// masked loss on the validation windows, then the policy's rollouts on the held-out questions
// (train/policy/run.ts evaluatePolicy; the RL stage calls that one itself).
import * as tf from '@tensorflow/tfjs';
import type { GPT } from '../../model/gpt';
import { loss } from '../../model/logprobs';
import { fitSeqLen, makeBatch, type MaskedTokens } from '../../model/mask';
import { evaluatePolicy, type TrainRun } from '../policy/run';
import type { SftData } from './sft-data';

/** Validation windows read 16 at a time. */
const VALIDATION_BATCH = 16;

/** val/loss, then the held-out evaluation's metrics, at `step`. */
export async function evaluationPhase(run: TrainRun, step: number, sft: Pick<SftData, 'valWindows' | 'gptConfig' | 'pad'>): Promise<Record<string, number>> {
  const val = await validate(run.model, sft.valWindows, sft.gptConfig.blockSize, sft.pad);
  return { ...val, ...(await evaluatePolicy(run, step)) };
}

/** Mean masked loss on the held-out windows (no gradients). */
async function validate(model: GPT, windows: readonly MaskedTokens[], blockSize: number, pad: number): Promise<Record<string, number>> {
  if (windows.length === 0) return {};
  let sum = 0;
  let n = 0;
  for (let i = 0; i < windows.length; i += VALIDATION_BATCH) {
    const rows = windows.slice(i, i + VALIDATION_BATCH);
    const b = makeBatch(rows, fitSeqLen(rows, blockSize), pad);
    const l = tf.tidy(() =>
      loss(model, tf.tensor2d(b.ids, [b.batchSize, b.seqLen], 'int32'), tf.tensor2d(b.targets, [b.batchSize, b.seqLen], 'int32'), tf.tensor2d(b.mask, [b.batchSize, b.seqLen], 'float32')),
    );
    sum += (await l.data())[0]! * b.lossTokens;
    n += b.lossTokens;
    l.dispose();
  }
  return n > 0 ? { 'val/loss': sum / n } : {};
}
