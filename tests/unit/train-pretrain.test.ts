// The base model: the pre-training corpus cut into rows (hand-checked), and a real `sailor pretrain` on a
// small graph whose checkpoint a training run then starts from by default.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { documentRows, fullLoss, mixedPick } from '../../main/lab/train/pretrain/pretrain-corpus';
import { trainTokenizer } from '../../main/lab/model/tokenizer';
import { readCheckpointManifest } from '../../main/lab/model/checkpoint';
import { readJsonFile } from '../../main/lab/store/files';
import type { MaskedTokens } from '../../main/lab/model/mask';
import { PRETRAIN_DEFAULTS } from '../../main/lab/train/pretrain/pretrain';
import { resourcesDir } from '../../main/lab/base/paths';
import { sailor } from '../support/cli-helpers';

describe('pre-training rows', () => {
  const tok = trainTokenizer(['Banaadir is located in Somalia. Aden Adde International Airport is located in Banaadir.'], { vocabSize: 300 });

  it('cuts a document into consecutive rows that overlap by one token, the loss on all but the first', () => {
    const text = 'Banaadir is located in Somalia. Aden Adde International Airport is located in Banaadir.';
    const all = [tok.special('<|bos|>'), ...tok.encode(text)];
    const rows = documentRows(tok, text, 8);
    expect(rows.length).toBe(Math.ceil((all.length - 1) / 8));
    for (const r of rows) {
      expect(r.ids.length).toBeLessThanOrEqual(9);
      expect(r.mask).toEqual(r.ids.map((_, i) => (i === 0 ? 0 : 1)));
    }
    // Each row's first token is the previous row's last: every token after <|bos|> is a target exactly once.
    expect([rows[0]!.ids[0], ...rows.flatMap((r) => r.ids.slice(1))]).toEqual(all);
    expect(documentRows(tok, '', 8)).toEqual([]);
  });

  it('puts the loss on every token of an episode window but the first', () => {
    expect(fullLoss({ ids: [5, 6, 7], mask: [0, 0, 1] })).toEqual({ ids: [5, 6, 7], mask: [0, 1, 1] });
  });

  it('draws the episode share from the episodes and the rest from the web', () => {
    const ep: MaskedTokens[] = [{ ids: [1], mask: [0] }];
    const web: MaskedTokens[] = [{ ids: [2], mask: [0] }, { ids: [3], mask: [0] }];
    let i = 0;
    const coins = [0.1, 0.9, 0.4, 0.6];
    const picks = mixedPick(ep, web, 0.5, 4, (n) => n - 1, () => coins[i++]!);
    expect(picks.map((p) => p.ids[0])).toEqual([1, 3, 1, 3]);
    expect(mixedPick([], web, 1, 2, () => 0, () => 0).map((p) => p.ids[0])).toEqual([2, 2]); // an empty pool gives its share away
    expect(mixedPick([], [], 0.5, 3, () => 0, () => 0)).toEqual([]);
  });
});

describe('the bundled base model', () => {
  it('was made by `sailor pretrain` with its defaults, so the documented command makes it again', () => {
    const manifest = readCheckpointManifest(join(resourcesDir(), 'base-model'));
    const { workers: _workers, ...defaults } = PRETRAIN_DEFAULTS;
    expect(manifest.recipe).toMatchObject({ command: 'sailor pretrain', source: 'knowledge base', ...defaults });
    expect(manifest.lineage.stage).toBe('pretrain');
    expect(manifest.model).toMatchObject({ nLayer: 2, nEmbd: 64, nHead: 4, blockSize: 256, distanceBias: true });
  });
});

describe('sailor pretrain', () => {
  it('writes a base model with its recipe, and a run starts from it unless told otherwise', { timeout: 600_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'sailor-pretrain-'));
    const env: NodeJS.ProcessEnv = { ...process.env, SAILOR_HOME: join(dir, 'home') };
    const ok = (args: string[], e = env) => {
      const r = sailor(args, e);
      expect(r.status, r.stderr).toBe(0);
      return r;
    };
    ok(['kg', 'build', '--rng', '7', '--max-edges', '300', '--out', join(dir, 'g.json')]);
    ok(['kg', 'build', '--rng', '3', '--max-edges', '60', '--out', join(dir, 'held-graph.json')]);
    const base = join(dir, 'base');
    const made = ok(['pretrain', '--out', base, '--graph', join(dir, 'g.json'), '--hold-out', join(dir, 'held-graph.json'), '--steps', '4', '--episodes', '20', '--workers', '1', '--json']);
    const manifest = readCheckpointManifest(base);
    expect(JSON.parse(made.stdout)).toMatchObject({ step: 4, lineage: { stage: 'pretrain', dataset: 'g.json' } });
    expect(manifest.recipe).toMatchObject({ command: 'sailor pretrain', source: 'g.json', steps: 4, rng: 1, episodes: 20, holdOut: ['held-graph.json'] });
    expect(manifest.metrics['pretrain/episodes']).toBeGreaterThan(0);
    expect(manifest.optimizer).toBeNull(); // a base model ships weights and tokenizer only
    expect(readdirSync(base).sort()).toEqual(['manifest.json', 'tokenizer.json', 'weights.bin']);

    // Holding out the source graph itself leaves no question to make an episode of: the web text only.
    const webOnly = join(dir, 'web-only');
    ok(['pretrain', '--out', webOnly, '--graph', join(dir, 'g.json'), '--hold-out', join(dir, 'g.json'), '--steps', '2', '--episodes', '20', '--workers', '1']);
    expect(readCheckpointManifest(webOnly).metrics['pretrain/episodes']).toBe(0);

    // A run with no model section starts from the base model: its shape, its tokenizer, its weights' lineage.
    ok(['synth', '--graph', join(dir, 'g.json'), '--count', '20', '--rng', '1', '--out', join(dir, 'train.jsonl')]);
    ok(['synth', '--graph', join(dir, 'g.json'), '--count', '5', '--rng', '2', '--out', join(dir, 'held.jsonl')]);
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ data: { graphFile: 'g.json', datasetFile: 'train.jsonl', heldOutFile: 'held.jsonl' }, backend: 'wasm', workers: 1, sft: { steps: 2 }, eval: { every: 2, questions: 2 } }));
    const run = JSON.parse(ok(['train', '--config', join(dir, 'run.json'), '--json'], { ...env, SAILOR_BASE_MODEL: base }).stdout) as { artefact: { id: string }; status: string };
    expect(run.status).toBe('finished');
    const ckpt = join(dir, 'home', 'runs', run.artefact.id, 'checkpoints', 'step-000002');
    expect(readCheckpointManifest(ckpt).lineage).toMatchObject({ parent: 'base-model', stage: 'sft' });
    expect(readCheckpointManifest(ckpt).model).toEqual(manifest.model);
    expect(readJsonFile(join(ckpt, 'tokenizer.json'))).toEqual(readJsonFile(join(base, 'tokenizer.json')));

    // Without a base model the run says where it looked and how to do without, before any data is made.
    const missing = sailor(['train', '--config', join(dir, 'run.json')], { ...env, SAILOR_BASE_MODEL: join(dir, 'nowhere') });
    expect(missing.status).not.toBe(0);
    expect(missing.stdout + missing.stderr).toMatch(/no base model in .*nowhere.*sailor pretrain.*model\.base to "none"/);
  });

  it('takes another shape, its context included, and keeps it in the recipe', { timeout: 600_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'sailor-pretrain-shape-'));
    const env: NodeJS.ProcessEnv = { ...process.env, SAILOR_HOME: join(dir, 'home') };
    expect(sailor(['kg', 'build', '--rng', '7', '--max-edges', '200', '--out', join(dir, 'g.json')], env).status).toBe(0);
    const shape = ['--n-layer', '1', '--n-embd', '32', '--n-head', '2', '--block-size', '96'];
    const made = sailor(['pretrain', '--out', join(dir, 'base'), '--graph', join(dir, 'g.json'), '--steps', '2', '--episodes', '5', '--workers', '1', ...shape], env);
    expect(made.status, made.stderr).toBe(0);
    const manifest = readCheckpointManifest(join(dir, 'base'));
    expect(manifest.model).toMatchObject({ nLayer: 1, nEmbd: 32, nHead: 2, blockSize: 96 });
    expect(manifest.recipe).toMatchObject({ model: { nLayer: 1, nEmbd: 32, nHead: 2, blockSize: 96 } });
    const tooShort = sailor(['pretrain', '--out', join(dir, 'short'), '--graph', join(dir, 'g.json'), '--block-size', '16'], env);
    expect(tooShort.status).not.toBe(0);
    expect(tooShort.stdout + tooShort.stderr).toMatch(/--block-size must be at least 32, got 16/);
  });
});
