// A synthesis's figures add up (issue 45, part 2, point 9): its rejections mix subgraphs set aside before any
// attempt with attempts dropped, so "304 attempts" beside "488 rejections" did not. Every attempt is published or
// dropped for one reason; the subgraphs set aside are counted apart. Real syntheses on the fixture graph.
import { describe, expect, it } from 'vitest';
import { SUBGRAPH_REJECTIONS, synthAccount } from '../../main/lab/contract';
import { fixtureGraph } from '../support/fixture-graph';
import { synthesize } from '../../main/lab/synth/build';
import { synthesizeAsearcher } from '../../main/lab/synth/asearcher';
import { datasetEdges } from '../../main/lab/synth/splits';

const LOOKUP = { kinds: [], anchorProb: 1, maxConstraints: 0, perShape: 100_000, minEdges: 1, maxEdges: 1 };
const sum = (t: Record<string, number>): number => Object.values(t).reduce((s, n) => s + n, 0);

describe('synthAccount', () => {
  const graph = fixtureGraph();
  const obfuscated = synthesize(graph, { count: 60, rng: 3 }).stats;
  const train = synthesize(graph, { count: 80, rng: 1, ...LOOKUP });
  // An RL-like set off the training set's edges: excluded edges and more sampling rounds.
  const offTraining = synthesize(graph, { count: 200, rng: 2, ...LOOKUP, excludeEdges: datasetEdges(train.qas) }).stats;
  const asearcher = synthesizeAsearcher(graph, { count: 10, rng: 2 }).stats;

  it.each([
    ['obfuscated questions', obfuscated],
    ['one-hop lookups', train.stats],
    ['lookups off another set’s edges', offTraining],
    ['ASearcher questions', asearcher],
  ])('%s: every attempt is published or dropped, the subgraphs set aside apart', (_name, stats) => {
    const a = synthAccount(stats);
    expect(a.attempts).toBe(stats.attempts);
    expect(a.published + a.droppedTotal).toBe(a.attempts);
    expect(a.unaccounted).toBe(0);
    expect(a.droppedTotal).toBe(sum(a.dropped));
    expect(sum(a.dropped) + sum(a.setAside)).toBe(sum(stats.rejections));
    for (const r of Object.keys(a.setAside)) expect(SUBGRAPH_REJECTIONS).toContain(r);
  });

  it('counts apart what the old "rejections (attempts dropped)" mixed in: there, the figures did not add up', () => {
    const a = synthAccount(offTraining);
    expect(sum(a.setAside)).toBeGreaterThan(0);
    expect(offTraining.published + sum(offTraining.rejections)).not.toBe(offTraining.attempts);
  });
});
