// Matrix products for the model whose gradients run fast on the wasm backend. tf.matMul with transposeA or
// transposeB set is an order of magnitude slower there than a plain matMul (tfjs 4.22), and tfjs-core's
// matMul gradient uses exactly those flags. These products and their custom gradients only use flag-free
// matMul plus explicit transposes (neutral on cpu; on GPU backends the transposes are cheap). The figures:
// docs/performance.md, 'Stock kernels replaced'.
import * as tf from '@tensorflow/tfjs';

/** Swaps the last two axes. */
export function transposeLast(x: tf.Tensor): tf.Tensor {
  const perm = x.shape.map((_, i) => i);
  const r = perm.length;
  [perm[r - 2], perm[r - 1]] = [perm[r - 1]!, perm[r - 2]!];
  return tf.transpose(x, perm);
}

/**
 * dB = A^T @ dY for A [.., M, K] and dY [.., M, N]. The right operand of a matmul is packed on every call
 * (wasm's XNNPACK), so when dY is the wider one the product is taken the other way round,
 * dB = (dY^T @ A)^T, and the narrower A is packed (the figures are in docs/performance.md, 'Where a step goes').
 */
function weightGrad(a: tf.Tensor, dy: tf.Tensor): tf.Tensor {
  const cols = (t: tf.Tensor): number => t.shape[t.rank - 1]!;
  if (cols(dy) > cols(a)) return transposeLast(tf.matMul(transposeLast(dy), a));
  return tf.matMul(transposeLast(a), dy);
}

/**
 * a @ b for rank 2 ([M, K] @ [K, N]) or rank 4 (batched over the first two axes), with the gradient
 * dA = dY @ B^T, dB = A^T @ dY computed by explicit transposes and flag-free matMul.
 */
export const matmul = tf.customGrad((a, b, save) => {
  (save as tf.GradSaveFunc)([a as tf.Tensor, b as tf.Tensor]);
  return {
    value: tf.matMul(a as tf.Tensor, b as tf.Tensor),
    gradFunc: (dy, saved) => [tf.matMul(dy, transposeLast(saved[1]!)), weightGrad(saved[0]!, dy)],
  };
}) as (a: tf.Tensor, b: tf.Tensor) => tf.Tensor;

/**
 * h [N, C] @ wte^T with the gradients dh = dY wte and dwte = dY^T h: the tied head's logits. The generic
 * matmul gradient would make dwte^T = h^T dY, whose right operand is the [N, V] logits gradient, and the
 * wasm backend packs (transposes) that right operand on every call (docs/performance.md, 'Stock kernels replaced').
 */
export const tiedLogits = tf.customGrad((h, wte, save) => {
  (save as tf.GradSaveFunc)([h as tf.Tensor, wte as tf.Tensor]);
  return {
    value: tf.matMul(h as tf.Tensor, tf.transpose(wte as tf.Tensor)),
    gradFunc: (dy, saved) => [tf.matMul(dy, saved[1]!), tf.matMul(tf.transpose(dy), saved[0]!)],
  };
}) as (h: tf.Tensor, wte: tf.Tensor) => tf.Tensor;
