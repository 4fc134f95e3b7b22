// The labels a newcomer reads: datasets by size, question style, role and graph; policies in words; every
// trajectory set grouped by run (evaluations, RL steps, RFT data), comparison or rollout job.
import { describe, expect, it } from 'vitest';
import type { ArtefactRecord, DatasetInfo, TrajSetInfo } from '../../main/lab/contract';
import { datasetLabel, datasetLabels, datasetRoles, datasetShortfall, distinctLabels, groupTrajSets, policyLabel, questionStyle, trajSetTitle, withEndpointNames, type RunUse } from '../../renderer/src/util/labels';

const LOOKUP = { kinds: [], anchorProb: 1, maxConstraints: 0, perShape: 100_000 };
const ds = (id: string, info: DatasetInfo, name = id): ArtefactRecord<DatasetInfo> => ({ id, name, path: `datasets/${id}.jsonl`, createdAt: '2026-11-25T10:00:00.000Z', info });
const synth = (params: Record<string, unknown>, stats?: Record<string, unknown>): DatasetInfo =>
  ({ graphId: 'g12k', params: { graphId: 'g12k', count: 1600, rng: 1, ...params }, ...(stats ? { stats } : {}) }) as DatasetInfo;

// The quick preset's three sets as the wizard makes them (wizardData.makeParams).
const train = ds('d-train', synth({ ...LOOKUP, minEdges: 1, maxEdges: 1 }, { published: 1600 }));
const held = ds('d-held', synth({ ...LOOKUP, count: 300, minEdges: 1, maxEdges: 1, excludeDatasetIds: ['d-train'] }, { published: 300 }));
const rl = ds('d-rl', synth({ ...LOOKUP, count: 300, minEdges: 1, maxEdges: 1, excludeDatasetIds: ['d-train', 'd-held'], allowFewer: true }, { published: 212 }));
const obf = ds('d-obf', synth({ count: 1000 }, { published: 1000, levels: { 1: 400, 3: 100, 2: 500 } }));
const runs: RunUse[] = [{ id: 'r1', name: 'tiny SFT 2000', data: { datasetId: 'd-train', heldOutDatasetId: 'd-held' } }];

describe('dataset labels', () => {
  it('say size, style, role and graph by name, e.g. "1600 one-hop lookups · training · graph quick graph"', () => {
    const graphName = (id: string): string | undefined => (id === 'g12k' ? 'quick graph' : undefined);
    expect(datasetLabel(train, runs, graphName)).toBe('1600 one-hop lookups · training · graph quick graph');
    expect(datasetLabel(held, runs, graphName)).toBe('300 one-hop lookups · held-out · graph quick graph');
    // Short of what was asked, the label says so, and the reason is at hand (issue 45, part 2, point 5).
    expect(datasetLabel(rl, runs, graphName)).toBe('212 of 300 one-hop lookups · RL · graph quick graph');
    expect(datasetShortfall(rl)).toBe('212 of 300 asked: the graph has no more facts of this shape off the earlier sets’ edges (an RL set takes what is left)');
    expect(datasetShortfall(held)).toBeNull();
    expect(datasetLabel(obf, runs, graphName)).toBe('1000 obfuscated questions (levels 1–3) · graph quick graph');
    expect(datasetLabel(obf, runs, null)).toBe('1000 obfuscated questions (levels 1–3)');
    // A graph whose name says it is one is not called "graph graph …".
    expect(datasetLabel(held, runs, () => 'graph rng 7, 300 edges')).toBe('300 one-hop lookups · held-out · graph rng 7, 300 edges');
    // An unknown graph shows its id; one question is singular.
    expect(datasetLabel(ds('d1', synth({ ...LOOKUP, count: 1, maxEdges: 2, minEdges: 2 }, { published: 1 })), [])).toBe('1 two-hop lookup · graph g12k');
  });

  it('take the role from how runs use the dataset first, else from how it was made', () => {
    expect(datasetRoles(train, runs)).toEqual(['training']);
    expect(datasetRoles(train, [])).toEqual([]); // made without exclusions: nothing says yet
    expect(datasetRoles(held, [])).toEqual(['held-out']);
    expect(datasetRoles(rl, [])).toEqual(['RL']);
    // A set one run trains on and another holds out is both.
    expect(datasetRoles(train, [...runs, { id: 'r2', name: 'b', data: { datasetId: 'd-x', heldOutDatasetId: 'd-train' } }])).toEqual(['training', 'held-out']);
    expect(datasetRoles(rl, [{ id: 'r3', name: 'c', data: { datasetId: 'd-train', heldOutDatasetId: 'd-held', rlDatasetId: 'd-rl' } }])).toEqual(['RL']);
  });

  it('name the question style from the synthesis params', () => {
    expect(questionStyle(ds('a', synth({ ...LOOKUP, minEdges: 1, maxEdges: 2 })))).toBe('one-hop to two-hop lookups');
    expect(questionStyle(ds('b', synth({ ...LOOKUP })))).toBe('lookups');
    expect(questionStyle(ds('c', synth({}, { levels: { 2: 5 } })))).toBe('obfuscated questions (level 2)');
    expect(questionStyle(ds('d', synth({})))).toBe('obfuscated questions');
    expect(questionStyle(ds('e', synth({ generator: 'asearcher' }, { levels: { 2: 38, 3: 2 } })))).toBe('ASearcher questions (levels 2–3)');
  });

  it('keep an imported dataset’s or a named one’s name', () => {
    expect(datasetLabel(ds('imp', { count: 40, graphId: 'g1' }, 'hotpot.jsonl'), [])).toBe('hotpot.jsonl · 40 questions · graph g1');
    expect(datasetLabel(ds('n', synth({ ...LOOKUP, count: 10, maxEdges: 1, name: 'my set' }, { published: 10 }), 'my set'), [])).toBe('my set · 10 one-hop lookups · graph g12k');
  });
});

describe('labels that can be told apart (issue 45, part 2, point 5)', () => {
  const rlAgain = (id: string, rng: number, graphId = 'g12k', createdAt = '2026-11-25T10:00:00.000Z'): ArtefactRecord<DatasetInfo> => ({
    ...ds(id, { ...rl.info, graphId, params: { ...rl.info.params!, graphId, rng } }),
    createdAt,
  });

  it('tell "300 one-hop lookups · RL" twice apart by seed, then graph, then the date made; others keep their label', () => {
    const graphName = (id: string): string | undefined => ({ g12k: 'quick graph', g2: 'graph rng 8, 12000 edges' })[id];
    // By seed.
    const bySeed = datasetLabels([rlAgain('r3', 3), rlAgain('r4', 4), held], runs, null);
    expect([...bySeed.values()]).toEqual(['212 of 300 one-hop lookups · RL · rng 3', '212 of 300 one-hop lookups · RL · rng 4', '300 one-hop lookups · held-out']);
    // The same seed on two graphs (where the label leaves the graph out), then the same seed and graph, made apart.
    const byGraph = datasetLabels([rlAgain('a', 3), rlAgain('b', 3, 'g2')], runs, null);
    expect([...byGraph.values()]).toEqual(['212 of 300 one-hop lookups · RL · graph g12k', '212 of 300 one-hop lookups · RL · graph g2']);
    expect([...datasetLabels([rlAgain('a', 3), rlAgain('b', 3, 'g2')], runs, graphName).values()]).toEqual([
      '212 of 300 one-hop lookups · RL · graph quick graph',
      '212 of 300 one-hop lookups · RL · graph rng 8, 12000 edges',
    ]);
    const byDate = datasetLabels([rlAgain('new', 3, 'g12k', '2026-11-28T15:02:00.000Z'), rlAgain('old', 3)], runs, null);
    expect([...byDate.values()]).toEqual(['212 of 300 one-hop lookups · RL · made 28 Nov 15:02', '212 of 300 one-hop lookups · RL · made 25 Nov 10:00']);
  });

  it('number what nothing tells apart, oldest first, and add only the facets that differ', () => {
    const items = [{ l: 'x', a: '1', b: 'p' }, { l: 'x', a: '1', b: 'p' }, { l: 'x', a: '2', b: 'p' }, { l: 'y', a: '1', b: 'p' }];
    expect(distinctLabels(items, (i) => i.l, [(i) => `a ${i.a}`, (i) => `b ${i.b}`])).toEqual(['x · a 1 · #3', 'x · a 1 · #2', 'x · a 2 · #1', 'y']);
  });
});

describe('policy labels', () => {
  it('say what answers: the expert, the base model, an untrained model, a run at a step', () => {
    const runName = (id: string): string | undefined => (id === 'r1' ? 'tiny SFT 2000' : undefined);
    expect(policyLabel('oracle')).toBe('expert (oracle)');
    expect(policyLabel('base')).toBe('base model');
    expect(policyLabel('untrained:3')).toBe('untrained model');
    expect(policyLabel('ckpt:r1/2000', runName)).toBe('tiny SFT 2000 · step 2000');
    expect(policyLabel('ckpt:gone/last', runName)).toBe('gone · last checkpoint');
    expect(policyLabel('llm:qwen')).toBe('llm:qwen');
    // A saved endpoint by its name, or its id when it was removed.
    const endpointName = (spec: string): string | undefined => (spec === 'endpoint:ep-1' ? 'verl step 100' : undefined);
    expect(policyLabel('endpoint:ep-1', runName, endpointName)).toBe('endpoint · verl step 100');
    expect(policyLabel('endpoint:ep-gone', runName, endpointName)).toBe('endpoint · ep-gone');
  });
});

describe('trajectory set groups', () => {
  const set = (id: string, info: TrajSetInfo, name = id): ArtefactRecord<TrajSetInfo> => ({ id, name, path: `x/${id}`, createdAt: '2026-11-25T10:00:00.000Z', info });
  const list = [
    set('job-1', { policy: 'oracle', datasetId: 'd-held', n: 2 }, 'oracle × 2 · 300 QAs · rng 0'),
    set('cmp-0', { policy: 'ckpt:r1/500', datasetId: 'd-held', comparisonId: 'cmp' }),
    set('job-2', { policy: 'base', datasetId: 'd-held', params: { name: 'base try' } as TrajSetInfo['params'] }),
    set('rl:r1:2001', { runId: 'r1', kind: 'rl', step: 2001 }),
    set('eval:r1:2000', { runId: 'r1', kind: 'eval', step: 2000 }),
    set('eval:r1:500', { runId: 'r1', kind: 'eval', step: 500 }),
    set('rft:r1', { runId: 'r1', kind: 'rft' }),
  ];
  const ctx = {
    runName: (id: string) => (id === 'r1' ? 'tiny SFT 2000' : undefined),
    datasetName: (id: string) => (id === 'd-held' ? '300 one-hop lookups · held-out' : undefined),
    comparisonName: (id: string) => (id === 'cmp' ? 'step 500 vs 2000' : undefined),
  };

  it('put a run’s RFT data, evaluations and RL steps under the run, then comparisons, then rollout jobs', () => {
    const groups = groupTrajSets(list, ctx);
    expect(groups.map((g) => [g.label, g.sets.map((s) => s.label)])).toEqual([
      [
        'Run tiny SFT 2000',
        [
          'tiny SFT 2000 · RFT data: the expert demonstrations SFT trained on',
          'tiny SFT 2000 · evaluation at step 500 · held-out questions',
          'tiny SFT 2000 · evaluation at step 2000 · held-out questions',
          // The option names its run: a closed picker shows it without its group (issue 45, part 2, point 5).
          'tiny SFT 2000 · RL rollouts at step 2001',
        ],
      ],
      ['Comparisons', ['tiny SFT 2000 · step 500 · in step 500 vs 2000']],
      ['Rollouts', ['expert (oracle) on 300 one-hop lookups · held-out × 2', 'base try']],
    ]);
    expect(trajSetTitle('eval:r1:2000', groups)).toBe('tiny SFT 2000 · evaluation at step 2000 · held-out questions');
    expect(trajSetTitle('job-1', groups)).toBe('expert (oracle) on 300 one-hop lookups · held-out × 2');
    expect(trajSetTitle('nope', groups)).toBeNull();
  });

  it('name a compared endpoint and its comparison by the endpoint’s name, not its id', () => {
    const endpointName = (spec: string) => ({ 'endpoint:ep-a1': 'tiny A', 'endpoint:ep-b2': 'tiny B' } as Record<string, string>)[spec];
    expect(withEndpointNames('endpoint:ep-a1 vs endpoint:ep-b2 on 30 questions', endpointName)).toBe('tiny A vs tiny B on 30 questions');
    expect(withEndpointNames('endpoint:ep-gone vs base', endpointName)).toBe('endpoint:ep-gone vs base');
    const compared = [set('cmp-ep', { policy: 'endpoint:ep-a1', datasetId: 'd-held', comparisonId: 'cmp2' })];
    const groups = groupTrajSets(compared, { ...ctx, comparisonName: () => 'endpoint:ep-a1 vs endpoint:ep-b2 on 30 questions', endpointName });
    expect(groups).toEqual([{ label: 'Comparisons', sets: [{ id: 'cmp-ep', label: 'endpoint · tiny A · in tiny A vs tiny B on 30 questions' }] }]);
  });
});
