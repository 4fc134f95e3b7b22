// What `sailor train --config` refuses before it starts anything (issue #44, items 3 and 4): questions made on
// another graph than the config's (exit 2, naming both), and a fresh model too big for this machine (exit 2,
// naming the figure). Through the CLI in-process, on real files; nothing is recorded in the store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../main/lab/cli/index';
import { fixtureGraph } from '../support/fixture-graph';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { modelParams, tooBigForMachine, trainingBytes, type ModelShape } from '../../main/lab/contract/model-footprint';
import { paramCount, resolveGPTConfig } from '../../main/lab/model/gpt';
import { TINY_RUN } from '../support/tiny-run';

let dir = '';
let home = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sailor-start-checks-'));
  home = join(dir, 'home');
  writeFileSync(join(dir, 'graph-a.json'), JSON.stringify(fixtureGraph({ seed: 4, countries: 12 })));
  writeFileSync(join(dir, 'graph-b.json'), JSON.stringify(fixtureGraph({ seed: 9, countries: 12 })));
  for (const [out, rng] of [['a-train.jsonl', '1'], ['a-held.jsonl', '2']]) {
    const r = await cli(['synth', '--graph', join(dir, 'graph-a.json'), '--count', '12', '--rng', rng!, '--out', join(dir, out!)]);
    expect(r.code, r.err).toBe(0);
  }
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const saved = process.env.SAILOR_HOME;
  process.env.SAILOR_HOME = home;
  try {
    const code = await runCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    if (saved === undefined) delete process.env.SAILOR_HOME;
    else process.env.SAILOR_HOME = saved;
  }
}

function config(name: string, body: Record<string, unknown>): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ ...TINY_RUN, sft: { steps: 2, batchSize: 2 }, eval: { every: 2, questions: 4 }, ...body }));
  return path;
}

const runsInStore = (): number => (existsSync(join(home, 'db.json')) ? JSON.parse(readFileSync(join(home, 'db.json'), 'utf8')).runs.length : 0);

describe('sailor train --config refuses up front', () => {
  it('questions synthesised on another graph: exit 2, naming the set, the graph it was made on and the config graph', async () => {
    const path = config('other-graph.json', { data: { graphFile: 'graph-b.json', datasetFile: 'a-train.jsonl', heldOutFile: 'a-held.jsonl' } });
    const r = await cli(['train', '--config', path]);
    expect(r.code, r.err).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain(`${path}: data.datasetFile: ${join(dir, 'a-train.jsonl')} was made on graph "graph-a.json" (its header), not on data.graphFile ${join(dir, 'graph-b.json')}`);
    expect(r.err).toMatch(/: 12 of 12 of its questions checked do not have their answer on that graph/);
    expect(runsInStore()).toBe(0);
  }, 120_000);

  it('a fresh model no machine here could hold: exit 2, naming its parameters and the memory it needs', async () => {
    const path = config('huge.json', { data: { graphFile: 'graph-a.json', datasetFile: 'a-train.jsonl', heldOutFile: 'a-held.jsonl' }, model: { base: 'none', preset: 'tiny', nEmbd: 8192, nLayer: 96, blockSize: 8192 } });
    const r = await cli(['train', '--config', path]);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/^sailor train: model: 77\.4 billion parameters \(nLayer 96, nEmbd 8192, blockSize 8192\) need at least \d+ GiB of memory to train .*this machine has [\d.]+ GiB: choose a smaller model\n$/);
    expect(runsInStore()).toBe(0);
  }, 120_000);
});

describe('model footprint (pure)', () => {
  it('counts the parameters model/gpt.ts creates, for every preset', () => {
    for (const preset of ['tiny', 'small', 'base'] as const) {
      const g = resolveGPTConfig({ preset, vocabSize: 1024 });
      const shape: ModelShape = { vocabSize: 1024, blockSize: g.blockSize, nLayer: g.nLayer, nHead: g.nHead, nEmbd: g.nEmbd, smearKeys: g.smearKeys };
      expect(modelParams(shape)).toBe(paramCount(g));
    }
  });

  it('by hand: a 1-layer model of width 8, vocab 10, context 4', () => {
    // wte 80 + wpe 32 + layer (12*64 + 13*8 + 2 heads) + ln_f 16
    expect(modelParams({ vocabSize: 10, blockSize: 4, nLayer: 1, nHead: 2, nEmbd: 8, smearKeys: true })).toBe(80 + 32 + 768 + 104 + 2 + 16);
    // 16 bytes a parameter, then one window's activations: 16*4*8 + 2*2*16 per layer, 2*4*10 logits, 4 bytes each
    expect(trainingBytes({ vocabSize: 10, blockSize: 4, nLayer: 1, nHead: 2, nEmbd: 8, smearKeys: true })).toBe(16 * 1002 + 4 * (512 + 64 + 80));
  });

  it('lets the presets train where they are meant to, and only fresh models are checked', () => {
    const data = { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' };
    const GiB = 2 ** 30;
    expect(tooBigForMachine(parseRunConfig({ data, model: { base: 'none', preset: 'tiny' } }), 1 * GiB)).toBeNull();
    expect(tooBigForMachine(parseRunConfig({ data, model: { base: 'none', preset: 'base' } }), 8 * GiB)).toBeNull();
    expect(tooBigForMachine(parseRunConfig({ data, model: { base: 'none', preset: 'base' } }), 2 * GiB)).toMatch(/model: 0\.1 billion|model: \d+\.\d million parameters/);
    expect(tooBigForMachine(parseRunConfig({ data, model: { base: 'bundled' } }), 1)).toBeNull(); // the bundled model's shape is its own
    expect(tooBigForMachine(parseRunConfig({ data, model: { base: 'none', nEmbd: 8192, nLayer: 96, blockSize: 8192 } }), totalmem())).toMatch(/billion parameters/);
  });
});
