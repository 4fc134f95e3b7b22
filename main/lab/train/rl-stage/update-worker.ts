// Entry of an RL data-parallel replica thread (model/replicas.ts, model/replica-serve.ts): the policy-gradient
// gradients of its share of an update's chunks (rl-update.ts pgGradients, the code rank 0 runs on its own share),
// with the share's loss part and statistics sums.
import { serveReplica } from '../../model/replica-serve';
import { pgGradients, type PgWork } from './rl-update';

await serveReplica<PgWork>('update-worker', async (model, work, step) => {
  const { grads, loss, sums } = await pgGradients(model, work, step);
  return { loss, grads: grads ?? [], extra: sums };
});
