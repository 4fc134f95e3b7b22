// Entry of a data-parallel replica thread (replicas.ts): a copy of the model on its own backend that, per
// step, loads rank 0's weights from shared memory and writes the gradients of its rows into its slot.
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from './backend';
import { createModel } from './gpt';
import { batchLoss } from './train';
import type { FromReplica, ReplicaInit, ToReplica } from './replicas';
import { copyWeightsOut, loadWeights, weightCount } from './shared-weights';
import { threadChannel } from '../util/worker-spawn';

const { init, send, onMessage } = threadChannel<ReplicaInit, ToReplica, FromReplica>('replica-worker');

await selectBackend({ only: [init.backend as 'wasm' | 'cpu'] });
const model = createModel(init.config);
const vars = [...model.params.values()];
const params = weightCount(model);
const flat = new Float32Array(init.shared);
const slot = flat.subarray(init.slot * params, (init.slot + 1) * params);

const weights = flat.subarray(0, params);
const loadRank0 = (): void => loadWeights(model, weights);

function step(msg: Extract<ToReplica, { type: 'step' }>): number {
  loadRank0();
  const { value, grads } = tf.variableGrads(() => batchLoss(model, msg.batch, msg.step, { seed: msg.seed }, msg.lossTokens), vars);
  let offset = 0;
  for (const v of vars) {
    const g = grads[v.name];
    if (g) slot.set(g.dataSync() as Float32Array, offset);
    else slot.fill(0, offset, offset + v.size);
    offset += v.size;
  }
  const loss = value.dataSync()[0]!;
  tf.dispose([value, ...Object.values(grads)]);
  return loss;
}

onMessage((msg) => {
  try {
    if (msg.type === 'step') send({ type: 'done', loss: step(msg) });
    else {
      loadRank0();
      const values = new Float32Array(params);
      copyWeightsOut(model, values);
      send({ type: 'weights', values });
    }
  } catch (err) {
    send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
});
send({ type: 'ready' });
