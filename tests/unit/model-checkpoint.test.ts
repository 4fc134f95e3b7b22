import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCheckpoint, readCheckpointManifest, saveCheckpoint } from '../../main/lab/model/checkpoint';
import { createModel, disposeModel, forward, resolveGPTConfig } from '../../main/lab/model/gpt';
import { makeBatch } from '../../main/lab/model/mask';
import { trainTokenizer } from '../../main/lab/model/tokenizer';
import { createOptimizer, resolveTrainConfig, trainStep } from '../../main/lab/model/train';
import { createRng } from '../../main/lab/util/rng';

const cfg = resolveGPTConfig({ vocabSize: 40, blockSize: 16, nLayer: 1, nHead: 2, nEmbd: 16 });
const tc = resolveTrainConfig({ lr: 5e-3, warmupSteps: 1, decaySteps: 10, batchSize: 2 });
let root: string;

function randomBatch(seed: number) {
  const rng = createRng(seed);
  const ex = [0, 1].map(() => {
    const ids = Array.from({ length: 17 }, () => rng.int(40));
    return { ids, mask: ids.map((_, i) => (i % 3 === 0 ? 0 : 1)) };
  });
  return makeBatch(ex, 16, 0);
}

beforeAll(async () => {
  await tf.setBackend('cpu');
  root = mkdtempSync(join(tmpdir(), 'sailor-ckpt-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('checkpoint', () => {
  it('save -> load -> one more step gives the same loss as continuing', async () => {
    const tok = trainTokenizer(['hello world hello there'], { vocabSize: 280 });
    const model = createModel(cfg, { seed: 3 });
    const opt = createOptimizer(model, tc);
    for (let s = 0; s < 2; s++) await trainStep(model, opt, randomBatch(s), tc);
    const rng = createRng(99);
    rng.next();
    const dir = join(root, 'step-000002');
    const manifest = await saveCheckpoint(dir, {
      model,
      optimizer: opt,
      tokenizer: tok,
      step: 2,
      train: tc,
      rngState: rng.state(),
      lineage: { parent: 'runs/a/step-000000', dataset: 'traj.jsonl', stage: 'sft' },
      metrics: { 'sft/loss': 3.2 },
    });
    expect(manifest.lineage).toEqual({ parent: 'runs/a/step-000000', dataset: 'traj.jsonl', run: null, stage: 'sft' });
    expect(readdirSync(dir).sort()).toEqual(['manifest.json', 'optim.bin', 'tokenizer.json', 'weights.bin']);
    expect(readdirSync(root).filter((f) => f.startsWith('.'))).toEqual([]); // no temp dir left behind

    const continued = await trainStep(model, opt, randomBatch(2), tc);
    const loaded = await loadCheckpoint(dir);
    expect(loaded.step).toBe(2);
    expect(loaded.train).toEqual(tc);
    expect(loaded.tokenizer!.toJSON()).toEqual(tok.toJSON());
    expect(createRng(loaded.rngState!).next()).toBe(rng.next());
    expect(loaded.optimizer!.step).toBe(2);
    const resumed = await trainStep(loaded.model, loaded.optimizer!, randomBatch(2), loaded.train!);
    expect(resumed.loss).toBe(continued.loss);
    expect(resumed.gradNorm).toBe(continued.gradNorm);
    expect(resumed.lr).toBe(continued.lr);
    expect(await loaded.model.params.get('h.0.mlp.c_fc.weight')!.data()).toEqual(await model.params.get('h.0.mlp.c_fc.weight')!.data());

    // Existing directory: conflict unless overwrite.
    await expect(saveCheckpoint(dir, { model, step: 3 })).rejects.toThrow(/already exists/);
    await saveCheckpoint(dir, { model, step: 3 }, { overwrite: true });
    expect(readCheckpointManifest(dir).step).toBe(3);
    expect(existsSync(join(dir, 'optim.bin'))).toBe(false);
    expect(readdirSync(root)).toEqual(['step-000002']);
    for (const x of [opt, loaded.optimizer!]) x.dispose();
    disposeModel(model);
    disposeModel(loaded.model);
  });

  it('refuses a model of another shape and corrupt files, with clear errors', async () => {
    const model = createModel(cfg, { seed: 4 });
    const dir = join(root, 'small');
    await saveCheckpoint(dir, { model, step: 0 });
    const wider = createModel({ ...cfg, nEmbd: 32 });
    await expect(loadCheckpoint(dir, { model: wider })).rejects.toThrow(/wte: shape \[40, 16\], model expects \[40, 32\]/);
    const untied = createModel({ ...cfg, tiedHead: false });
    await expect(loadCheckpoint(dir, { model: untied })).rejects.toThrow(/lm_head.weight: missing/);
    const bin = join(dir, 'weights.bin');
    const bytes = readFileSync(bin);
    bytes[10] = bytes[10]! ^ 0xff;
    writeFileSync(bin, bytes);
    await expect(loadCheckpoint(dir)).rejects.toThrow(/SHA-256/);
    await expect(loadCheckpoint(join(root, 'nope'))).rejects.toThrow(/not a checkpoint/);
    for (const m of [model, wider, untied]) disposeModel(m);
  });

  it('loads a checkpoint written before smeared keys, bidirectional responses, rotary positions and distance penalties existed as a model without them', async () => {
    const model = createModel({ ...cfg, smearKeys: false, bidirectionalObservations: false }, { seed: 5 });
    const dir = join(root, 'legacy');
    await saveCheckpoint(dir, { model, step: 0 });
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { model: Record<string, unknown> };
    delete manifest.model.smearKeys; // as the older code wrote it
    delete manifest.model.bidirectionalObservations;
    delete manifest.model.positions;
    delete manifest.model.distanceBias;
    writeFileSync(manifestPath, JSON.stringify(manifest));
    const loaded = await loadCheckpoint(dir);
    expect(loaded.model.config.smearKeys).toBe(false);
    expect(loaded.model.config.bidirectionalObservations).toBe(false);
    expect(loaded.model.config.positions).toBe('learned');
    expect(loaded.model.config.distanceBias).toBe(false);
    expect([...loaded.model.params.keys()].some((k) => k.endsWith('.smear'))).toBe(false);
    const ids = tf.tensor2d([[1, 7, 12, 13, 8, 3]], [1, 6], 'int32'); // a tool response (7 ... 8), read causally as before
    expect(tf.tidy(() => tf.max(tf.abs(tf.sub(forward(loaded.model, ids), forward(model, ids)))).dataSync()[0]!)).toBe(0);
    ids.dispose();
    disposeModel(loaded.model);
    disposeModel(model);
  });
});
