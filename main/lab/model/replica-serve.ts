// The body of every data-parallel replica thread (replicas.ts): a copy of the model on its own backend that,
// per step, loads rank 0's weights from shared memory, computes the gradients of its share of the work with
// the entry's `gradients`, and writes them into its slot. Entries: replica-worker.ts (SFT rows) and the RL
// stage's update-worker.ts (policy-gradient chunks).
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from './backend';
import { createModel, type GPT } from './gpt';
import type { FromReplica, ReplicaInit, ToReplica } from './replicas';
import { copyWeightsOut, loadWeights, weightCount } from './shared-weights';
import { threadChannel } from '../util/worker-spawn';

/** A share's gradients: one per variable in model.params order (null: none), its loss part, and any extra report. */
export interface ShareGradients {
  loss: number;
  grads: readonly (tf.Tensor | null)[];
  extra?: unknown;
}

/**
 * Serves replica requests on this worker thread. `gradients` computes the gradients of one share of a step
 * with the model holding rank 0's weights; the tensors it returns are written to the slot and disposed here.
 */
export async function serveReplica<W>(entry: string, gradients: (model: GPT, work: W, step: number) => ShareGradients | Promise<ShareGradients>): Promise<void> {
  const { init, send, onMessage } = threadChannel<ReplicaInit, ToReplica<W>, FromReplica>(entry);
  await selectBackend({ only: [init.backend as 'wasm' | 'cpu'] });
  const model = createModel(init.config);
  const vars = [...model.params.values()];
  const params = weightCount(model);
  const flat = new Float32Array(init.shared);
  const slot = flat.subarray(init.slot * params, (init.slot + 1) * params);
  const loadRank0 = (): void => loadWeights(model, flat.subarray(0, params));

  async function step(msg: Extract<ToReplica<W>, { type: 'step' }>): Promise<FromReplica> {
    loadRank0();
    const share = await gradients(model, msg.work, msg.step);
    try {
      let offset = 0;
      vars.forEach((v, i) => {
        const g = share.grads[i];
        if (g) slot.set(g.dataSync() as Float32Array, offset);
        else slot.fill(0, offset, offset + v.size);
        offset += v.size;
      });
    } finally {
      tf.dispose(share.grads.filter((g): g is tf.Tensor => g !== null));
    }
    return { type: 'done', loss: share.loss, ...(share.extra !== undefined ? { extra: share.extra } : {}) };
  }

  // One request at a time (Replica.request), so answers keep their order.
  let queue = Promise.resolve();
  onMessage((msg) => {
    queue = queue.then(async () => {
      try {
        if (msg.type === 'step') send(await step(msg));
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
  });
  send({ type: 'ready' });
}
