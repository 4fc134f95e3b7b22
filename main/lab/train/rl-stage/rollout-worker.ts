// Entry of the RL rollout thread (rollout-thread.ts): plays episodes with a copy of the policy under the
// newest weights the learner published, and sends back each trajectory with its sampled turns and version.
import { selectBackend } from '../../model/backend';
import { readGraphFile } from '../../kg/io';
import { SimWeb } from '../../agent/web';
import { simToolset } from '../../agent/env';
import { rolloutOne } from '../../agent/rollout';
import type { PolicyFactory } from '../../agent/policies';
import { LabError } from '../../base/errors';
import { createModel } from '../../model/gpt';
import { PublishedWeights } from '../../model/shared-weights';
import { BatchDecoder } from '../../model/batch-decoder';
import { Tokenizer } from '../../model/tokenizer';
import { checkpointPolicy, TURN_TOKENS, type SampledTurn } from '../policy/policy';
import type { FromRolloutThread, RolloutThreadInit, ToRolloutThread } from './rollout-thread';
import { threadChannel } from '../../util/worker-spawn';

const { init, send, onMessage } = threadChannel<RolloutThreadInit, ToRolloutThread, FromRolloutThread>('rollout-worker');

await selectBackend({ only: [init.backend as 'wasm' | 'cpu'] });
const model = createModel(init.config);
const weights = new PublishedWeights(init.weights);
let version = weights.load(model, Number.NaN);
const tok = Tokenizer.fromJSON(init.tokenizer);
const tools = simToolset(new SimWeb(readGraphFile(init.graphFile), init.web));
let stopped = false;
// The episodes in flight on this thread (the stage's rl.workers) decode their turns as one batch.
const decoder = new BatchDecoder(model);

async function play(msg: Extract<ToRolloutThread, { type: 'rollout' }>): Promise<void> {
  version = weights.load(model, version); // the newest weights, between episodes only
  const v = version;
  const turns: SampledTurn[] = [];
  const own = checkpointPolicy(model, tok, { name: msg.name, ...init.policy, maxTurnTokens: TURN_TOKENS, onTurn: (t) => turns.push(t), decoder });
  const factory: PolicyFactory = {
    spec: msg.name,
    kind: 'ckpt',
    forQA: () => ({
      name: msg.name,
      generate: async (context, g) => {
        if (stopped) throw new LabError('cancelled', 'the RL stage ended');
        return own.generate(context, g);
      },
    }),
  };
  const traj = await rolloutOne(msg.qa, msg.sample, factory, tools, { ...init.rollout, seed: msg.seed });
  send({ type: 'rollout', id: msg.id, traj, turns, version: v });
}

onMessage((msg) => {
  if (msg.type === 'stop') {
    stopped = true;
    return;
  }
  play(msg).catch((err: unknown) => send({ type: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) }));
});
send({ type: 'ready' });
