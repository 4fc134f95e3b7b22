// Entry of a decoding thread (acting-threads.ts): a copy of the model on its own backend whose BatchDecoder
// decodes the turns it is given, with the weights the calling thread published for the turn's version.
import { selectBackend } from './backend';
import { BatchDecoder } from './batch-decoder';
import { createModel } from './gpt';
import { PublishedWeights } from './shared-weights';
import type { DecoderThreadInit, FromDecoderThread, ToDecoderThread } from './acting-threads';
import { createRng, type Rng } from '../util/rng';
import { threadChannel } from '../util/worker-spawn';

const { init, send, onMessage } = threadChannel<DecoderThreadInit, ToDecoderThread, FromDecoderThread>('decoder-worker');

await selectBackend({ only: [init.backend as 'wasm' | 'cpu'] });
const model = createModel(init.config);
const weights = new PublishedWeights(init.weights);
let version = weights.load(model, Number.NaN);
const decoder = new BatchDecoder(model);

/** The episode's stream continued from `state`, counting its draws (the caller advances its own by as many). */
function countingRng(state: number | null): { rng: Rng; draws: () => number } {
  const rng = createRng(state ?? 0);
  let n = 0;
  const next = rng.next;
  return { rng: { ...rng, next: () => (n++, next()) }, draws: () => n };
}

onMessage((msg) => {
  // The owner publishes only while no turn is in flight, so loading here never changes a row mid-turn.
  if (msg.version !== version) version = weights.load(model, version);
  const { rng, draws } = countingRng(msg.rngState);
  decoder.sample(msg.prompt, { ...msg.opts, rng }).then(
    (result) => send({ type: 'turn', id: msg.id, result, draws: draws(), stats: { ...decoder.stats } }),
    (err: unknown) => send({ type: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) }),
  );
});
send({ type: 'ready' });
