// Which keys each query may see in one forward pass, built once for all layers: each query's reach for the
// fused attention kernels (attention.ts; training and scoring where they are registered), else the additive
// mask for tf ops (causal, or bidirectional within tool responses, plus distance penalties), and the rotary
// tables. The reach, mask and tables themselves are made in positions.ts.
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import type { Ctx } from './gpt';
import { attentionBias, causalReach, distancePenalty, observationReach, rotaryTables, type Rotary } from './positions';

/** What every layer of one forward pass shares: the reach (fused kernels) or the additive mask `bias` (tf ops), and the rotary tables. */
export interface LayerInputs {
  reach?: tf.Tensor2D;
  bias?: tf.Tensor;
  rot?: Rotary;
}

/**
 * The LayerInputs of a forward pass over ids [B, T] that starts at position pos0 (after a KV cache of pos0
 * positions): the reach when the pass takes the fused attention (`fusedAttention`, gpt.ts fastPath), else the mask.
 */
export function layerInputs(ids: tf.Tensor2D, pos0: number, ctx: Ctx, fusedAttention: boolean): LayerInputs {
  const [B, T] = ids.shape;
  const shared: LayerInputs = {};
  if (ctx.slots) return shared; // a decoding step over slots: attention reads the slots (slot-cache.ts)
  if (ctx.cfg.positions === 'rotary') shared.rot = rotaryTables(pos0, T, ctx.cfg.nEmbd / ctx.cfg.nHead);
  if (fusedAttention) {
    const reach = ctx.cfg.bidirectionalObservations ? observationReach(ids.dataSync(), B, T) : causalReach(B, T);
    shared.reach = tf.tensor2d(reach, [B, T], 'int32');
  } else if (T > 1) {
    let reach: Int32Array | undefined;
    if (ctx.cfg.bidirectionalObservations) {
      // After a cache, a response may have opened before this call: the caller (Decoder) knows the tokens.
      if (!ctx.reach && pos0 > 0) throw new LabError('internal', 'bidirectionalObservations with a KV cache needs the reach of the new positions');
      reach = ctx.reach ?? observationReach(ids.dataSync(), B, T); // the ids are a small host-side int32 input
    }
    shared.bias = attentionBias(B, T, pos0, reach);
  }
  if (ctx.cfg.distanceBias && !shared.reach) {
    const penalty = distancePenalty(ctx.cfg.nHead, T, pos0);
    shared.bias = shared.bias ? tf.add(shared.bias, penalty) : penalty; // one [.., nHead, T, Tk] sum for every layer
  }
  return shared;
}
