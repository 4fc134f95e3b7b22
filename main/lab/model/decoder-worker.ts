// Entry of a decoding thread (acting-threads.ts): a copy of the model on its own backend whose BatchDecoder
// decodes the turns it is given, with the weights the calling thread published for the turn's version. A
// thread the process keeps is lent to one model after another: a `model` message makes its copy that model's.
import { selectBackend } from './backend';
import { BatchDecoder } from './batch-decoder';
import { createModel, disposeModel, type GPT, type GPTConfig } from './gpt';
import { PublishedWeights } from './shared-weights';
import type { DecoderThreadInit, FromDecoderThread, ToDecoderThread } from './acting-threads';
import { createRng, type Rng } from '../util/rng';
import { threadChannel } from '../util/worker-spawn';

const { init, send, onMessage } = threadChannel<DecoderThreadInit, ToDecoderThread, FromDecoderThread>('decoder-worker');

await selectBackend({ only: [init.backend as 'wasm' | 'cpu'] });

/** The copy of a model whose weights `shared` holds, loaded, and its decoder. */
function copyOf(config: GPTConfig, shared: SharedArrayBuffer): { model: GPT; weights: PublishedWeights; version: number; decoder: BatchDecoder } {
  const model = createModel(config);
  const weights = new PublishedWeights(shared);
  return { model, weights, version: weights.load(model, Number.NaN), decoder: new BatchDecoder(model) };
}

let copy = copyOf(init.config, init.weights);

/** The episode's stream continued from `state`, counting its draws (the caller advances its own by as many). */
function countingRng(state: number | null): { rng: Rng; draws: () => number } {
  const rng = createRng(state ?? 0);
  let n = 0;
  const next = rng.next;
  return { rng: { ...rng, next: () => (n++, next()) }, draws: () => n };
}

onMessage((msg) => {
  if (msg.type === 'model') {
    // The owner lends the thread only while it has no turn in flight, so no row decodes with the old copy.
    disposeModel(copy.model);
    copy = copyOf(msg.config, msg.weights);
    return;
  }
  // The owner publishes only while no turn is in flight, so loading here never changes a row mid-turn.
  const { model, weights, decoder } = copy;
  if (msg.version !== copy.version) copy.version = weights.load(model, copy.version);
  const { rng, draws } = countingRng(msg.rngState);
  decoder.sample(msg.prompt, { ...msg.opts, rng }).then(
    (result) => send({ type: 'turn', id: msg.id, result, draws: draws(), stats: { ...decoder.stats } }),
    (err: unknown) => send({ type: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) }),
  );
});
send({ type: 'ready' });
