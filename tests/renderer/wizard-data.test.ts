// The run wizard's data step without a page (renderer/src/components/runs/wizard/wizardData.ts): the quick
// preset's forms, the job params they make (later question sets keep off the earlier sets' edges), and the
// picks made when the lists change.
import { describe, expect, it } from 'vitest';
import { CURRICULUM_PRESET, FEW_DEMOS_PRESET, type ArtefactRecord } from '@contract';
import { autoPick, datasetRole, datasetsOfGraph, dropUnfitPicks, excludedFor, makeParams, presetForms, quickPreset, unfitPicks } from '../../renderer/src/components/runs/wizard/wizardData';
import type { DataChoice } from '../../renderer/src/components/runs/runConfig';

const LOOKUP = { kinds: [], anchorProb: 1, maxConstraints: 0, perShape: 100_000 };
const data = (): DataChoice => ({ graphId: 'g', datasetId: 'train', heldOutDatasetId: 'held', rlDatasetId: '' });

describe('the quick preset', () => {
  it('is a 12000-edge graph (rng 7), 1600 training, 300 held-out and 300 RL one-hop lookups', () => {
    expect(quickPreset()).toEqual({
      graph: { rng: 7, maxEdges: 12000 },
      train: { count: 1600, rng: 1, maxEdges: 1, style: 'lookup' },
      heldOut: { count: 300, rng: 2, maxEdges: 1, style: 'lookup' },
      rl: { count: 300, rng: 3, maxEdges: 1, style: 'lookup' },
    });
  });

  it('makes the params of the jobs: held-out off the training edges, RL off both and as many as there are', () => {
    const make = quickPreset();
    expect(makeParams('graph', make, data())).toEqual({ rng: 7, maxEdges: 12000 });
    expect(makeParams('train', make, data())).toEqual({ graphId: 'g', count: 1600, rng: 1, minEdges: 1, maxEdges: 1, ...LOOKUP });
    expect(makeParams('heldOut', make, data())).toEqual({ graphId: 'g', count: 300, rng: 2, minEdges: 1, maxEdges: 1, ...LOOKUP, excludeDatasetIds: ['train'] });
    expect(makeParams('rl', make, data())).toEqual({ graphId: 'g', count: 300, rng: 3, minEdges: 1, maxEdges: 1, ...LOOKUP, excludeDatasetIds: ['train', 'held'], allowFewer: true });
  });

  it('leaves empty inputs to the defaults of the job, and obfuscation to the synthesiser', () => {
    const make = quickPreset();
    make.graph.maxEdges = '';
    make.train = { count: '', rng: 4, maxEdges: '', style: 'obfuscated' };
    expect(makeParams('graph', make, data())).toEqual({ rng: 7 });
    expect(makeParams('train', make, data())).toEqual({ graphId: 'g', rng: 4 });
    expect(excludedFor('rl', { ...data(), heldOutDatasetId: '' })).toEqual(['train']);
  });
});

describe('the other presets make the sets of the data commands in docs/experiments.md', () => {
  it('few demonstrations: the "few" commands (graph --rng 7 --max-edges 12000; 400 / 300 / 1400 one-hop lookups, rng 1 / 2 / 3)', () => {
    const make = presetForms(FEW_DEMOS_PRESET);
    expect(makeParams('graph', make, data())).toEqual({ rng: 7, maxEdges: 12000 });
    expect(makeParams('train', make, data())).toEqual({ graphId: 'g', count: 400, rng: 1, minEdges: 1, maxEdges: 1, ...LOOKUP });
    expect(makeParams('heldOut', make, data())).toEqual({ graphId: 'g', count: 300, rng: 2, minEdges: 1, maxEdges: 1, ...LOOKUP, excludeDatasetIds: ['train'] });
    expect(makeParams('rl', make, data())).toEqual({ graphId: 'g', count: 1400, rng: 3, minEdges: 1, maxEdges: 1, ...LOOKUP, excludeDatasetIds: ['train', 'held'], allowFewer: true });
  });

  it('the curriculum: the "chain" commands (2400 lookups of 1-2 edges; 300 held-out and 300 RL of exactly 2)', () => {
    const make = presetForms(CURRICULUM_PRESET);
    expect(makeParams('graph', make, data())).toEqual({ rng: 7, maxEdges: 12000 });
    expect(makeParams('train', make, data())).toEqual({ graphId: 'g', count: 2400, rng: 1, minEdges: 1, maxEdges: 2, ...LOOKUP });
    expect(makeParams('heldOut', make, data())).toEqual({ graphId: 'g', count: 300, rng: 2, minEdges: 2, maxEdges: 2, ...LOOKUP, excludeDatasetIds: ['train'] });
    expect(makeParams('rl', make, data())).toEqual({ graphId: 'g', count: 300, rng: 3, minEdges: 2, maxEdges: 2, ...LOOKUP, excludeDatasetIds: ['train', 'held'], allowFewer: true });
  });
});

describe('autoPick', () => {
  const art = (id: string, info: Record<string, unknown>, name = id): ArtefactRecord => ({ id, name, info, createdAt: '2026-01-01T00:00:00Z' }) as unknown as ArtefactRecord;
  const graphs = [art('g2', {}), art('g1', {})];
  const sized = (id: string, graphId: string, n: number) => art(id, { graphId, stats: { published: n } });
  const datasets = [sized('big', 'g2', 300), sized('small', 'g2', 20), sized('mid', 'g2', 100), sized('other', 'g1', 500)];

  it('picks the newest graph, its largest dataset to train on and its smallest other one held out', () => {
    const d: DataChoice = { graphId: '', datasetId: '', heldOutDatasetId: '' };
    autoPick(d, graphs, datasets);
    expect(datasetsOfGraph(datasets, 'g2').map((x) => x.id)).toEqual(['big', 'small', 'mid']);
    expect(d.graphId).toBe('g2');
    expect([d.datasetId, d.heldOutDatasetId]).toEqual(['big', 'small']);
  });

  it('picks by role: the RL set (the smallest) is never held out; a held-out set made off the training set is', () => {
    const made = (id: string, n: number, params: Record<string, unknown>) => art(id, { graphId: 'g2', stats: { published: n }, params: { graphId: 'g2', count: n, rng: 1, ...params } });
    const sets = [made('train', 1600, {}), made('held', 300, { excludeDatasetIds: ['train'] }), made('rl', 266, { excludeDatasetIds: ['train', 'held'], allowFewer: true })];
    const d: DataChoice = { graphId: '', datasetId: '', heldOutDatasetId: '' };
    autoPick(d, graphs, sets);
    expect([d.datasetId, d.heldOutDatasetId]).toEqual(['train', 'held']);
    expect(datasetRole(sets[2]!)).toBe('rl');
    expect(datasetRole(sets[1]!)).toBe('heldOut');
    expect(datasetRole(sets[0]!)).toBe('train');
  });

  it('keeps picks that are still in the lists', () => {
    const d: DataChoice = { graphId: 'g2', datasetId: 'mid', heldOutDatasetId: 'big' };
    autoPick(d, graphs, datasets);
    expect(d).toEqual({ graphId: 'g2', datasetId: 'mid', heldOutDatasetId: 'big' });
  });
});

describe('picks of the chosen preset\'s shape (issue 45, part 2, point 1)', () => {
  const art = (id: string, n: number, params: Record<string, unknown>): ArtefactRecord =>
    ({ id, name: id, createdAt: '2026-01-01T00:00:00Z', info: { graphId: 'g', stats: { published: n }, params: { graphId: 'g', rng: 1, ...LOOKUP, ...params } } }) as unknown as ArtefactRecord;
  // The quick preset's three sets, as the wizard makes them (the RL set came out short: 264 of 300).
  const quick = [
    art('q-train', 1600, { count: 1600, maxEdges: 1, minEdges: 1 }),
    art('q-held', 300, { count: 300, maxEdges: 1, minEdges: 1, excludeDatasetIds: ['q-train'] }),
    art('q-rl', 264, { count: 300, maxEdges: 1, minEdges: 1, excludeDatasetIds: ['q-train', 'q-held'], allowFewer: true }),
  ];
  const graphs = [{ id: 'g', name: 'g', info: {}, createdAt: '' } as unknown as ArtefactRecord];

  it('picks the quick preset\'s sets, the RL set too, for the quick forms', () => {
    const d: DataChoice = { graphId: '', datasetId: '', heldOutDatasetId: '', rlDatasetId: '' };
    autoPick(d, graphs, quick, quickPreset());
    expect(d).toEqual({ graphId: 'g', datasetId: 'q-train', heldOutDatasetId: 'q-held', rlDatasetId: 'q-rl' });
  });

  it('picks nothing for few demonstrations or the curriculum until their sets exist, then those', () => {
    for (const p of [FEW_DEMOS_PRESET, CURRICULUM_PRESET]) {
      const d: DataChoice = { graphId: '', datasetId: '', heldOutDatasetId: '', rlDatasetId: '' };
      autoPick(d, graphs, quick, presetForms(p));
      expect(d, p.id).toEqual({ graphId: 'g', datasetId: '', heldOutDatasetId: '', rlDatasetId: '' });
    }
    const curriculum = [
      art('c-train', 2400, { count: 2400, minEdges: 1, maxEdges: 2 }),
      art('c-held', 300, { count: 300, minEdges: 2, maxEdges: 2, excludeDatasetIds: ['c-train'] }),
      art('c-rl', 300, { count: 300, minEdges: 2, maxEdges: 2, excludeDatasetIds: ['c-train', 'c-held'], allowFewer: true }),
    ];
    const d: DataChoice = { graphId: '', datasetId: '', heldOutDatasetId: '', rlDatasetId: '' };
    autoPick(d, graphs, [...quick, ...curriculum], presetForms(CURRICULUM_PRESET));
    expect(d).toEqual({ graphId: 'g', datasetId: 'c-train', heldOutDatasetId: 'c-held', rlDatasetId: 'c-rl' });
  });

  it('drops the previous preset\'s picks when another is chosen, and says which picks do not fit', () => {
    const d: DataChoice = { graphId: 'g', datasetId: 'q-train', heldOutDatasetId: 'q-held', rlDatasetId: 'q-rl' };
    const few = presetForms(FEW_DEMOS_PRESET);
    // An RL set's count is "up to": the quick preset's 300 (264 made) is the few-demonstrations preset's shape too.
    expect(unfitPicks(d, quick, few)).toEqual(['demonstrated questions: count']);
    expect(unfitPicks(d, quick, presetForms(CURRICULUM_PRESET))).toEqual([
      'demonstrated questions: count, edges per question',
      'held-out questions: edges per question',
      'answer-only questions (RL): edges per question',
    ]);
    dropUnfitPicks(d, quick, few);
    // The held-out set is the few-demonstrations preset's shape (300 one-hop lookups) but kept off the quick
    // training set's edges, not the new one's: it goes with it.
    expect(d).toEqual({ graphId: 'g', datasetId: '', heldOutDatasetId: '', rlDatasetId: '' });
    expect(unfitPicks(d, quick, few)).toEqual([]);
    // A training set of the quick preset's shape stays when only the RL set differs (two-edge RL questions).
    const e: DataChoice = { graphId: 'g', datasetId: 'q-train', heldOutDatasetId: 'q-held', rlDatasetId: 'q-rl' };
    dropUnfitPicks(e, quick, { ...quickPreset(), rl: { ...quickPreset().rl, minEdges: 2, maxEdges: 2 } });
    expect(e).toEqual({ graphId: 'g', datasetId: 'q-train', heldOutDatasetId: 'q-held', rlDatasetId: '' });
  });
});
