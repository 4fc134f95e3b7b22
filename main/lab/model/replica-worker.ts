// Entry of an SFT data-parallel replica thread (replicas.ts, replica-serve.ts): the gradients of its rows'
// loss, normalised by the whole batch's loss tokens so the shares add up.
import * as tf from '@tensorflow/tfjs';
import { serveReplica } from './replica-serve';
import type { SftWork } from './replicas';
import { batchLoss } from './train';

await serveReplica<SftWork>('replica-worker', (model, work, step) => {
  const vars = [...model.params.values()];
  const { value, grads } = tf.variableGrads(() => batchLoss(model, work.batch, step, { seed: work.seed }, work.lossTokens), vars);
  const loss = value.dataSync()[0]!;
  value.dispose();
  return { loss, grads: vars.map((v) => grads[v.name] ?? null) };
});
