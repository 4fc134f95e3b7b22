import { describe, expect, it } from 'vitest';
import { MODEL_PRESETS, MODEL_SHAPE_FIELDS, parseRunConfig, PRESET_SHAPES } from '../../main/lab/contract/run-config';
import { GPT_PRESETS, resolveGPTConfig } from '../../main/lab/model/gpt';
import { freshModelConfig } from '../../main/lab/train/policy/base-model';

const data = { graphId: 'g1', datasetId: 'd1', heldOutDatasetId: 'd2' };

describe('run config', () => {
  it('fills the quick defaults around the required data', () => {
    const c = parseRunConfig({ data });
    expect(c.model.preset).toBe('tiny');
    expect(c.sft.steps).toBe(3000);
    expect(c.eval).toEqual({ every: 1000, questions: 300, samples: 1, temperature: 0 }); // greedy pass@1 on the quick preset's whole held-out set
    expect(c.backend).toBe('auto');
  });

  it('a section left out is its fields\' defaults, the same as the section given empty', () => {
    const given = parseRunConfig({ data, env: {}, rft: {}, tokenizer: {}, model: {}, sft: {}, eval: {}, checkpoint: {}, rl: { reward: {} } });
    const left = parseRunConfig({ data, rl: {} });
    expect(left).toEqual(given);
    expect(left.rl!.reward).toEqual({ format: 0.1, answer: 0.9, answerMode: 'em', formatCredit: 'turns' });
    expect(left.rft).toEqual({ attempts: 2, minToolCalls: 1, maxTokens: 4096, style: 'compact', forcedAnswers: true });
  });

  it('names every bad field', () => {
    expect(() => parseRunConfig({ data: { graphId: 'g1' }, sft: { lr: 5 }, model: { preset: 'huge' } })).toThrow(
      /data\.datasetId: .*data\.heldOutDatasetId: .*model\.preset: .*sft\.lr: /,
    );
    expect(() => parseRunConfig({ data, sft: { stepz: 3 } })).toThrow(/sft: Unrecognized key: "stepz"/);
    expect(parseRunConfig({ data }).sft.answerRepeat).toBe(1);
    expect(() => parseRunConfig({ data, sft: { answerRepeat: 0 } })).toThrow(/sft\.answerRepeat: /);
  });

  it('builds the fresh model from the preset and the model overrides', () => {
    expect(freshModelConfig(parseRunConfig({ data }).model, 1024)).toMatchObject({ nLayer: 2, blockSize: 256, vocabSize: 1024, bidirectionalObservations: false });
    const deeper = freshModelConfig(parseRunConfig({ data, model: { base: 'none', preset: 'small', blockSize: 384, nLayer: 3, bidirectionalObservations: true } }).model, 999);
    expect(deeper).toMatchObject({ nLayer: 3, nEmbd: 384, blockSize: 384, vocabSize: 999, bidirectionalObservations: true, smearKeys: true });
    expect(() => parseRunConfig({ data, model: { bidirectionalObservations: 'yes' } })).toThrow(/model\.bidirectionalObservations/);
    const wider = freshModelConfig(parseRunConfig({ data, model: { base: 'none', nEmbd: 128, nHead: 8, positions: 'learned' } }).model, 1024);
    expect(wider).toMatchObject({ nLayer: 2, nEmbd: 128, nHead: 8, blockSize: 256, positions: 'learned' });
    expect(freshModelConfig(parseRunConfig({ data }).model, 1024).positions).toBe('learned');
    expect(() => parseRunConfig({ data, model: { positions: 'absolute' } })).toThrow(/model\.positions/);
    expect(() => parseRunConfig({ data, model: { base: 'none', positions: 'rotary' } })).toThrow(/model\.positions: rotary positions were retired/);
  });

  it('refuses a width that does not split across the heads when the config is read, naming the field', () => {
    expect(() => parseRunConfig({ data, model: { base: 'none', nEmbd: 100, nHead: 8 } })).toThrow(/model\.nEmbd: nEmbd 100 must be divisible by nHead 8/);
    expect(() => parseRunConfig({ data, model: { base: 'none', nHead: 6 } })).toThrow(/model\.nHead: nEmbd 64 must be divisible by nHead 6/);
    expect(() => parseRunConfig({ data, model: { base: 'none', preset: 'small', nEmbd: 512 } })).toThrow(/model\.nEmbd: nEmbd 512 must be divisible by nHead 6/);
    expect(parseRunConfig({ data, model: { base: 'none', preset: 'small', nHead: 8 } }).model.nHead).toBe(8);
  });

  it('takes fresh RL questions, never the held-out ones', () => {
    expect(parseRunConfig({ data: { ...data, rlDatasetId: 'rl' } }).data.rlDatasetId).toBe('rl');
    expect(parseRunConfig({ data }).data.rlDatasetId).toBeUndefined(); // RL draws from the training set
    expect(() => parseRunConfig({ data: { ...data, rlDatasetId: data.heldOutDatasetId } })).toThrow(/data\.rlDatasetId: must differ from the held-out questions \(data\.heldOutDatasetId\)/);
  });

  it('starts from the bundled base model by default, whose shape a config may not change', () => {
    expect(parseRunConfig({ data }).model).toEqual({ base: 'bundled', preset: 'tiny' });
    expect(() => parseRunConfig({ data, model: { nLayer: 3 } })).toThrow(/model\.nLayer: the base model fixes the model's shape; set model\.base to "none"/);
    expect(() => parseRunConfig({ data, model: { preset: 'small' } })).toThrow(/model\.preset: the base model is tiny/);
    expect(parseRunConfig({ data, model: { base: 'none', nLayer: 3 } }).model.nLayer).toBe(3);
  });

  it('builds each model preset with the contract\'s shape (one definition, every shape field)', () => {
    for (const preset of MODEL_PRESETS) {
      expect(Object.keys(PRESET_SHAPES[preset]).sort()).toEqual([...MODEL_SHAPE_FIELDS].sort());
      expect(GPT_PRESETS[preset]).toMatchObject(PRESET_SHAPES[preset]);
      expect(resolveGPTConfig({ preset })).toMatchObject(PRESET_SHAPES[preset]);
    }
    expect(Object.keys(GPT_PRESETS).sort()).toEqual([...MODEL_PRESETS].sort());
  });

  it('names a config that is not an object, and checks the rules between fields whose fields are valid even when others are not', () => {
    for (const raw of [42, 'x', null, [1]]) expect(() => parseRunConfig(raw)).toThrow(/run config: \(config\): /);
    expect(() => parseRunConfig({ data: 5, sft: { lr: 1e-3, minLr: 1e-2 } })).toThrow(/data: .*sft\.minLr: must not exceed/);
    expect(() => parseRunConfig({ data, sft: { lr: 1e-3, minLr: 'x' }, rl: 7 })).not.toThrow(/must not exceed|needs sft\.steps/);
  });

  it('refuses cross-field mistakes', () => {
    expect(() => parseRunConfig({ data, sft: { lr: 1e-3, minLr: 1e-2 } })).toThrow(/sft\.minLr: must not exceed the learning rate \(sft\.lr = 0\.001\)/);
    expect(() => parseRunConfig({ data: { ...data, heldOutDatasetId: 'd1' } })).toThrow(/must differ/);
  });
});
