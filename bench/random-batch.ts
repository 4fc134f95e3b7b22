// A training batch of random tokens, every position trained: what the step-timing benches feed the trainer, so a
// step's cost is measured on full-length rows whatever the data.
import { makeBatch } from '../main/lab/model/mask';
import type { Rng } from '../main/lab/util/rng';

export type Batch = ReturnType<typeof makeBatch>;

/** `rows` rows of `blockSize` + 1 random token ids below `vocabSize`, none masked. */
export function randomBatch(rng: Rng, rows: number, blockSize: number, vocabSize: number): Batch {
  const row = (): { ids: number[]; mask: number[] } => {
    const ids = Array.from({ length: blockSize + 1 }, () => rng.int(vocabSize));
    return { ids, mask: ids.map(() => 1) };
  };
  return makeBatch(Array.from({ length: rows }, row), blockSize, 0);
}
