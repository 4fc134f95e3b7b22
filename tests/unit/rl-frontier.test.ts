// The data-policy loop's pool (rl/frontier.ts) and its synthesis (train/rl-stage/rl-refill.ts): DUPO's verdict by a
// group's pass rate, the counts the dashboard shows, and a pool whose questions all become too easy refilled with
// fresh, unique questions off the protected (demonstration and held-out) edges of a real synthesised world.
import { describe, expect, it } from 'vitest';
import { FrontierPool, judgeGroup } from '../../main/lab/rl/frontier';
import { freshQuestions, generatorSettings } from '../../main/lab/train/rl-stage/rl-refill';
import { fixtureGraph } from '../support/fixture-graph';
import { synthesize } from '../../main/lab/synth/build';
import { datasetEdges } from '../../main/lab/synth/splits';

const q = (id: string, question = `question ${id}?`) => ({ id, question });

describe('judgeGroup', () => {
  it('keeps a question strictly between 0 and G solved', () => {
    expect([judgeGroup(8, 8), judgeGroup(0, 8), judgeGroup(1, 8), judgeGroup(7, 8)]).toEqual(['too_easy', 'too_hard', 'frontier', 'frontier']);
    expect(() => judgeGroup(9, 8)).toThrow(/0 <= solved <= g/);
    expect(() => judgeGroup(1, 0)).toThrow(/g > 0/);
  });
});

describe('FrontierPool', () => {
  it('drops too-easy and too-hard questions, counts them, and wants as many as left', () => {
    const pool = new FrontierPool([q('a'), q('b'), q('c'), q('d')], 4);
    expect(pool.draw(3).map((x) => x.id)).toEqual(['a', 'b', 'c']);
    expect(pool.draw(3).map((x) => x.id)).toEqual(['d', 'a', 'b']);
    expect(pool.judge('a', 8, 8)).toBe('too_easy');
    expect(pool.judge('b', 0, 8)).toBe('too_hard');
    expect(pool.judge('c', 3, 8)).toBe('frontier');
    expect(pool.judge('a', 3, 8)).toBe('frontier'); // already gone: judged, not counted
    expect(pool.stats()).toEqual({ seed: 4, made: 0, kept: 1, tooEasy: 1, tooHard: 1, size: 2 });
    expect(pool.wanted).toBe(2);
    expect(pool.metrics()).toEqual({ 'rl/pool_size': 2, 'rl/pool_seed': 4, 'rl/pool_made': 0, 'rl/pool_kept': 1, 'rl/pool_too_easy': 1, 'rl/pool_too_hard': 1 });
  });

  it('takes a fresh question only once, by id and by question text', () => {
    const pool = new FrontierPool([q('a', 'Which airport serves X?')], 5);
    expect(pool.add([q('a'), q('b', 'which  airport serves x?'), q('c'), q('c')])).toBe(1);
    expect(pool.stats().made).toBe(1);
    expect([...pool.everSeen]).toEqual(['a', 'c']);
  });

  it('waits hardPatience all-fail groups before it drops a question as too hard', () => {
    const pool = new FrontierPool([q('a')], 1, 2);
    pool.judge('a', 0, 4);
    expect(pool.size).toBe(1);
    pool.judge('a', 2, 4); // a success resets the streak
    pool.judge('a', 0, 4);
    expect(pool.size).toBe(1);
    pool.judge('a', 0, 4);
    expect(pool.stats()).toMatchObject({ size: 0, tooHard: 1 });
  });
});

describe('the loop on a synthesised world', () => {
  const graph = fixtureGraph({ seed: 11 });
  const lookups = { kinds: [], maxConstraints: 0, minEdges: 1, maxEdges: 1, anchorProb: 1, perShape: 100_000 };
  const demos = synthesize(graph, { ...lookups, count: 6, rng: 1, graphName: 'g' }).qas;
  const held = synthesize(graph, { ...lookups, count: 6, rng: 2, graphName: 'g', excludeEdges: datasetEdges(demos) }).qas;
  const protectedEdges = datasetEdges([...demos, ...held]);
  const seed = synthesize(graph, { ...lookups, count: 6, rng: 3, graphName: 'g', excludeEdges: protectedEdges }).qas;

  it('refills a pool whose questions all became too easy with fresh, unique questions off the protected edges', () => {
    const settings = generatorSettings({ format: 'sailor.qa/1' }, seed, 'g');
    expect(settings.input).toMatchObject({ minEdges: 1, maxEdges: 1, kinds: [], maxConstraints: 0 });
    const pool = new FrontierPool(seed, seed.length);
    const had = new Map(seed.map((x) => [x.id, x]));
    for (let round = 1; round <= 2; round++) {
      for (const x of pool.draw(pool.size)) pool.judge(x.id, 8, 8); // the policy now solves every one
      expect(pool.size).toBe(0);
      const before = datasetEdges([...had.values()]);
      const fresh = freshQuestions(graph, settings, protectedEdges, [...had.values()], pool.wanted, 100 + round, round);
      expect(fresh.length).toBeGreaterThan(0);
      expect(pool.add(fresh)).toBe(fresh.length); // none seen before
      for (const x of fresh) {
        expect(x.subgraph.edges.some((e) => protectedEdges.has(e))).toBe(false);
        expect(x.subgraph.edges.some((e) => before.has(e))).toBe(false); // no fact an earlier question asked
        expect(had.has(x.id)).toBe(false);
      }
      for (const x of fresh) had.set(x.id, x);
    }
    const s = pool.stats();
    expect(s.tooEasy).toBe(s.seed + s.made - s.size);
    expect(new Set([...had.values()].map((x) => x.question)).size).toBe(had.size);
  });

  it('reads the generator settings `sailor synth` records in a header', () => {
    const header = { format: 'sailor.qa/1' as const, generator: 'subgraph', options: { kinds: [], max_constraints: 0, min_edges: 1, max_edges: 2, anchor_prob: 1, per_shape: 7 } };
    expect(generatorSettings(header, seed, 'g')).toEqual({ generator: 'subgraph', input: { graphName: 'g', kinds: [], maxConstraints: 0, minEdges: 1, maxEdges: 2, anchorProb: 1, perShape: 7 } });
  });
});
