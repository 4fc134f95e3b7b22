// The heads of one attention layer, given its projected queries, keys and values, and the KV cache that
// decoding keeps (LayerKV). gpt.ts attention() picks the path (fastPath decides, attention-mask.ts sets the
// reach or the mask) and projects in and out; here is the arithmetic of the two paths that take whole
// sequences (a batch decoder's one-token step reads its own slots instead: slot-cache.ts):
// - fusedHeads: the fused kernels (kernels/attention.ts) in the [B, T, H, D] layout the projection makes, for
//   training, scoring and a prefill from position 0, which hands back its cache; causal, with the options a
//   shipped model uses (smeared keys, distance penalties);
// - opHeads: tf ops in the [B, H, T, D] layout under the additive mask, the reference: for backends without
//   the kernels, for decoding after a KV cache, whose keys and values it extends, and for bidirectionalObservations.
// Smeared keys (GPTConfig.smearKeys) take the layer's smear weight.
import * as tf from '@tensorflow/tfjs';
import type { LayerInputs } from './attention-mask';
import type { Ctx } from './gpt';
import { fusedAttention } from './kernels/attention';
import { matmul, transposeLast } from './kernels/matmul';
import { fusedSmearKeys, smearKeys } from './kernels/smear';
import { distanceSlopes } from './positions';

// A type alias (not an interface) so it is a tf.TensorContainer and can be returned from tf.tidy.
export type LayerKV = {
  /** Keys stored transposed, [B, nHead, headDim, Tpast]: a decode step then transposes only its new key. */
  kT: tf.Tensor4D;
  /** [B, nHead, Tpast, headDim] */
  v: tf.Tensor4D;
  /** smearKeys: the last position's key before smearing, [B, nHead, 1, headDim] (the next key mixes it in). */
  kLast?: tf.Tensor4D;
};

function splitHeads(x: tf.Tensor, B: number, T: number, H: number, D: number): tf.Tensor4D {
  return tf.transpose(tf.reshape(x, [B, T, H, D]), [0, 2, 1, 3]) as tf.Tensor4D;
}

/** The heads through the fused kernels, in the [B, T, H, D] layout the projection makes: no transposes. */
export function fusedHeads([q0, k0, v0]: tf.Tensor[], smear: tf.Tensor | undefined, ctx: Ctx): { y: tf.Tensor; kv?: LayerKV } {
  const { nHead: H, nEmbd: C } = ctx.cfg;
  const D = C / H;
  const [B, T] = q0!.shape as [number, number, number];
  const heads = (t: tf.Tensor): tf.Tensor4D => tf.reshape(t, [B, T, H, D]) as tf.Tensor4D;
  const q = heads(q0!);
  const raw = heads(k0!);
  // installFastKernels registers the smear kernels with the attention ones.
  const k = smear ? fusedSmearKeys(raw, smear) : raw;
  const v = heads(v0!);
  const y = fusedAttention(q, k, v, 1 / Math.sqrt(D), ctx.cfg.distanceBias ? distanceSlopes(H) : []);
  if (!ctx.decode) return { y };
  // A prefill (decoding from position 0): the cache as opHeads keeps it, and each row's last raw key.
  const kv: LayerKV = { kT: tf.transpose(k, [0, 2, 3, 1]) as tf.Tensor4D, v: tf.transpose(v, [0, 2, 1, 3]) as tf.Tensor4D };
  const last = Int32Array.from({ length: B }, (_, b) => b * T + (ctx.lastPositions?.[b] ?? T - 1));
  if (ctx.cfg.smearKeys) kv.kLast = tf.reshape(tf.gather(tf.reshape(raw, [B * T, C]), last), [B, H, 1, D]) as tf.Tensor4D;
  return { y, kv };
}

/** The heads as tf ops in the [B, H, T, D] layout, with the KV cache when decoding; y comes back [B, T, H, D]. */
export function opHeads(
  [q0, k0, v0]: tf.Tensor[], smear: tf.Tensor | undefined, ctx: Ctx, past: LayerKV | undefined, { bias }: LayerInputs, dropout: (weights: tf.Tensor) => tf.Tensor,
): { y: tf.Tensor; kv?: LayerKV } {
  const { nHead: H, nEmbd: C } = ctx.cfg;
  const D = C / H;
  const [B, T] = q0!.shape as [number, number, number];
  const q = splitHeads(q0!, B, T, H, D);
  let k = splitHeads(k0!, B, T, H, D);
  let kLast: tf.Tensor4D | undefined;
  if (smear) ({ k, last: kLast } = smearKeys(k, past?.kLast, smear, ctx.lastPositions));
  let kT = transposeLast(k) as tf.Tensor4D; // [B, H, D, T]
  let v = splitHeads(v0!, B, T, H, D);
  if (past) {
    kT = tf.concat([past.kT, kT], 3);
    v = tf.concat([past.v, v], 2);
  }
  const mm = ctx.decode ? tf.matMul : matmul;
  let att = tf.mul(mm(q, kT), 1 / Math.sqrt(D)); // [B, H, T, Tk]
  if (bias) att = tf.add(att, bias); // a single new query sees every key: no mask, only distance penalties if on
  att = dropout(tf.softmax(att, -1));
  const y = tf.transpose(mm(att, v), [0, 2, 1, 3]);
  if (!ctx.decode) return { y };
  return { y, kv: kLast ? { kT, v, kLast } : { kT, v } };
}
