// Which keys each query may see in one forward pass, built once for all layers: each query's reach for the
// fused attention kernels (attention.ts; training and scoring where they are registered), else the additive
// mask for tf ops (causal, or bidirectional within tool responses, plus distance penalties), and the rotary
// tables. The reach, mask and tables themselves are made in positions.ts.
import * as tf from '@tensorflow/tfjs';
import { LabError } from '../base/errors';
import type { Ctx } from './gpt';
import { attentionBias, causalReach, distancePenalty, observationReach, rotaryAngle, rotaryTables, type Rotary } from './positions';

/**
 * A decoding step over rows whose caches hold different numbers of positions, stored right-aligned in one
 * [B, .., Tk] cache (row b's keys in the last `positions[b]` columns, zeros before them). Each row's new
 * token stands at its own position; `keyMask` [B, 1, 1, Tk + 1] (0 / -1e9) hides the padding columns.
 * Right alignment keeps the distance from every query to key column j the same (Tk - j) in every row.
 */
export interface RaggedRows {
  positions: Int32Array;
  keyMask: tf.Tensor4D;
}

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
  if (ctx.ragged) return raggedInputs(ctx, pos0);
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

/**
 * One new token per row at each row's own position over a right-aligned cache of pos0 columns (gpt.ts
 * RaggedRows): the padding mask, the distance penalties (the same for every row, right-aligned), and the
 * rotary tables of each row's position, [B, 1, 1, D] (queries and keys are [B, H, 1, D]).
 */
function raggedInputs(ctx: Ctx, pos0: number): LayerInputs {
  const { positions, keyMask } = ctx.ragged!;
  const shared: LayerInputs = { bias: ctx.cfg.distanceBias ? tf.add(keyMask, distancePenalty(ctx.cfg.nHead, 1, pos0)) : keyMask };
  if (ctx.cfg.positions === 'rotary') {
    const D = ctx.cfg.nEmbd / ctx.cfg.nHead;
    const cos = new Float32Array(positions.length * D);
    const sin = new Float32Array(positions.length * D);
    positions.forEach((t, b) => {
      for (let d = 0; d < D; d++) {
        const a = rotaryAngle(t, d, D);
        cos[b * D + d] = Math.cos(a);
        sin[b * D + d] = Math.sin(a);
      }
    });
    shared.rot = { cos: tf.tensor4d(cos, [positions.length, 1, 1, D]), sin: tf.tensor4d(sin, [positions.length, 1, 1, D]) };
  }
  return shared;
}
