// Which keys each query may see in one forward pass, built once for all layers: nothing for the fused
// attention kernels (attention.ts; causal by construction, with distance penalties as slopes), else the
// additive mask for tf ops (causal, or bidirectional within tool responses, plus distance penalties). The
// reach and mask themselves are made in positions.ts.
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import type { Ctx } from './gpt';
import { attentionBias, distancePenalty, observationReach } from './positions';

/** What every layer of one forward pass shares: whether it takes the fused kernels, else the additive mask `bias` (tf ops). */
export interface LayerInputs {
  fused?: true;
  bias?: tf.Tensor;
}

/**
 * The LayerInputs of a forward pass over ids [B, T] that starts at position pos0 (after a KV cache of pos0
 * positions): the fused attention (`fusedAttention`, gpt.ts fastPath, causal only), else the mask.
 */
export function layerInputs(ids: tf.Tensor2D, pos0: number, ctx: Ctx, fusedAttention: boolean): LayerInputs {
  const [B, T] = ids.shape;
  const shared: LayerInputs = {};
  if (ctx.slots) return shared; // a decoding step over slots: attention reads the slots (slot-cache.ts)
  if (fusedAttention) return { fused: true }; // causal; distance penalties go in as the heads' slopes
  if (T > 1) {
    let reach: Int32Array | undefined;
    if (ctx.cfg.bidirectionalObservations) {
      // After a cache, a response may have opened before this call: the caller (Decoder) knows the tokens.
      if (!ctx.reach && pos0 > 0) throw new LabError('internal', 'bidirectionalObservations with a KV cache needs the reach of the new positions');
      reach = ctx.reach ?? observationReach(ids.dataSync(), B, T); // the ids are a small host-side int32 input
    }
    shared.bias = attentionBias(B, T, pos0, reach);
  }
  if (ctx.cfg.distanceBias) {
    const penalty = distancePenalty(ctx.cfg.nHead, T, pos0);
    shared.bias = shared.bias ? tf.add(shared.bias, penalty) : penalty; // one [.., nHead, T, Tk] sum for every layer
  }
  return shared;
}
