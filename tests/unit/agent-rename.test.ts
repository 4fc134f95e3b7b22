// Renamed worlds (issue #41): the names change, the facts stay, held-out names never appear, and the expert's
// episodes on the renamed web are consistent (the renamed question's answer is on the renamed pages).
import { describe, expect, it } from 'vitest';
import { demoGraph, demoQAs } from '../../main/lab/agent/demo';
import { commonNameWords, generatedName, madeUpWord, questionNames, renameGraph, renameQa, replaceNames } from '../../main/lab/agent/rename';
import { createRng } from '../../main/lab/util/rng';
import { baseQaId, renamedRollouts, renamedText } from '../../main/lab/train/sft/renamed-episodes';
import { policyView } from '../../main/lab/train/policy/view';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import type { AgentStep } from '../../main/lab/agent/react';

const graph = demoGraph();
const original = new Map(graph.nodes.map((n) => [n.id, n.name]));

describe('generated names', () => {
  it('makes pronounceable words of the asked length, capitalised like the word they replace', () => {
    const rng = createRng(3);
    const w = madeUpWord(7, rng, 'Maribor');
    expect(w).toHaveLength(7);
    expect(w).toMatch(/^[A-Z][a-z]{6}$/);
    expect(madeUpWord(5, rng, 'dinar')).toMatch(/^[a-z]{5}$/);
    expect(madeUpWord(1, rng)).toHaveLength(3);
  });

  it('keeps the common words of names and replaces the rest letter run by letter run', () => {
    expect(commonNameWords(['Maribor Airport', 'Praia Airport', 'Praia'], 2)).toEqual(new Set(['Airport', 'Praia']));
    const rng = createRng(1);
    const keep = new Set(['Airport', 'International', 'Europe']);
    const a = generatedName('Maribor International Airport', keep, rng);
    expect(a).toMatch(/^[A-Z][a-z]{6} International Airport$/);
    const tz = generatedName('Europe/Tallinn', keep, rng);
    expect(tz).toMatch(/^Europe\/[A-Z][a-z]{6}$/);
    const b = generatedName('Airport', keep, rng); // nothing to replace: a word in front
    expect(b).toMatch(/^[A-Z][a-z]{5} Airport$/);
  });
});

describe('renameGraph', () => {
  it('renames every node to a unique name, keeps ids, edges and attributes, drops aliases', () => {
    const { graph: g, names } = renameGraph(graph, createRng(5), { generated: 0.5 });
    expect(g.edges).toEqual(graph.edges);
    expect(g.nodes.map((n) => n.id)).toEqual(graph.nodes.map((n) => n.id));
    expect(g.nodes.map((n) => n.attrs)).toEqual(graph.nodes.map((n) => n.attrs));
    for (const n of g.nodes) {
      expect(n.name).not.toBe(original.get(n.id));
      expect(n.aliases).toEqual([]);
      expect(names.get(n.id)).toBe(n.name);
    }
    expect(new Set(g.nodes.map((n) => n.name.toLowerCase())).size).toBe(g.nodes.length);
  });

  it('with generated 0 hands out the real names of the same type; with 1 only made-up ones', () => {
    const real = renameGraph(graph, createRng(2), { generated: 0 });
    // The demo graph has three people, three cities and three companies: each gets another real name of its
    // type, except one whose type has only its own name left, which gets a made-up one.
    for (const type of ['person', 'city', 'company']) {
      const renamed = real.graph.nodes.filter((x) => x.type === type);
      const realOnes = renamed.filter((n) => graph.nodes.some((m) => m.type === type && m.id !== n.id && m.name === n.name));
      const madeUp = renamed.filter((n) => !graph.nodes.some((m) => m.name === n.name));
      expect(realOnes.length).toBeGreaterThanOrEqual(2);
      expect(realOnes.length + madeUp.length).toBe(3);
    }
    const made = renameGraph(graph, createRng(2), { generated: 1 });
    for (const n of made.graph.nodes) expect([...original.values()]).not.toContain(n.name);
  });

  it('is deterministic in the seed and differs between seeds', () => {
    const a = renameGraph(graph, createRng(9), { generated: 0.5 }).names;
    expect(renameGraph(graph, createRng(9), { generated: 0.5 }).names).toEqual(a);
    expect(renameGraph(graph, createRng(10), { generated: 0.5 }).names).not.toEqual(a);
  });

  it('never hands out a protected name, even when only real names are asked for', () => {
    const protectedNames = new Set(['Anna Petrova', 'moscow']);
    for (let seed = 0; seed < 20; seed++) {
      const { graph: g } = renameGraph(graph, createRng(seed), { generated: 0, protectedNames });
      const all = g.nodes.map((n) => n.name.toLowerCase());
      expect(all).not.toContain('anna petrova');
      expect(all).not.toContain('moscow');
    }
  });

  it('refuses a share outside [0, 1]', () => {
    expect(() => renameGraph(graph, createRng(1), { generated: 1.5 })).toThrow(/generated must be in \[0, 1\]/);
  });
});

describe('renaming text and questions', () => {
  it('replaces whole names only, the longest first', () => {
    const map = new Map([['Iraq', 'Gavo'], ['Iraqi dinar', 'Veduvehu telu']]);
    expect(replaceNames('Iraq uses Iraqi dinar; Iraqis pay in it.', map)).toBe('Gavo uses Veduvehu telu; Iraqis pay in it.');
    expect(replaceNames('nothing here', new Map())).toBe('nothing here');
  });

  it('renames a question\'s named entity and its answer, and marks the id', () => {
    const names = new Map([['n1', 'Kelomat'], ['n2', 'Vorid Salut']]);
    const qa = renameQa(demoQAs()[0]!, original, names, '@r1')!;
    // 'Which company was founded by Igor Khandros?' -> FormFactor, with n1 and n2 renamed.
    expect(qa.question).toBe('Which company was founded by Vorid Salut?');
    expect(qa.answer).toBe('Kelomat');
    expect(qa.aliases).toEqual([]);
    expect(qa.id).toBe('qa-demo-1@r1');
    expect(baseQaId(qa.id)).toBe('qa-demo-1');
  });

  it('refuses a question that does not spell its anchor by the node\'s name', () => {
    const qa = { ...demoQAs()[0]!, question: 'Which company was founded by Mr Khandros?' };
    expect(renameQa(qa, original, new Map([['n1', 'A'], ['n2', 'B']]), '@r1')).toBeNull();
  });

  it('collects the names of a question set: answers, aliases, and its subgraph nodes with their aliases', () => {
    const qa = { ...demoQAs()[0]!, subgraph: { nodes: ['n1', 'n2'], edges: [] } };
    expect(questionNames([qa], graph)).toEqual(new Set(['FormFactor', 'FormFactor, Inc.', 'Igor Khandros']));
  });
});

describe('renamed episodes', () => {
  const config = parseRunConfig({ data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' }, renamed: { copies: 3, generated: 1 } });
  const train = [{ ...demoQAs()[0]!, subgraph: { nodes: ['n1', 'n2'], edges: ['e1'] } }];
  const held = [{ ...demoQAs()[2]!, subgraph: { nodes: ['n9', 'n10', 'n8'], edges: ['e8', 'e9'] } }];
  const inputs = { graph, train, protect: held, config, web: { topK: 3, snippetChars: 160, maxEvidence: 3 }, limits: { maxToolCalls: 12, maxNewTokens: 400 } };

  it('plays every training question once per world, consistently: the renamed answer stands on a page read', async () => {
    const trajs = await renamedRollouts(inputs);
    expect(trajs.map((t) => t.qa_id)).toEqual(['qa-demo-1@r1', 'qa-demo-1@r2', 'qa-demo-1@r3']);
    const answers = new Set<string>();
    for (const t of trajs) {
      const r = renamedText(t)!;
      expect(t.reward.answer).toBe(1);
      expect(t.prediction).toBe(r.answers[0]);
      answers.add(r.answers[0]!);
      const text = policyView(r.question, t.steps as AgentStep[]).text;
      const observations = (t.steps as AgentStep[]).map((s) => s.observation ?? '').join('\n');
      expect(observations).toContain(r.answers[0]);
      // With generated names only, no name of the original world is left anywhere in the episode.
      for (const name of original.values()) expect(text).not.toContain(name);
    }
    expect(answers.size).toBe(3); // a different name in every world
  });

  it('leaks no held-out name into any renamed episode, even with real names only', async () => {
    const real = { ...inputs, config: parseRunConfig({ data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' }, renamed: { copies: 4, generated: 0 } }) };
    const trajs = await renamedRollouts(real);
    expect(trajs).toHaveLength(4);
    for (const t of trajs) {
      const text = policyView(renamedText(t)!.question, t.steps as AgentStep[]).text;
      for (const name of ['Anna Petrova', 'Kazan', 'Russia']) expect(text).not.toContain(name);
    }
  });

  it('is off by default in the run config', () => {
    expect(parseRunConfig({ data: { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' } }).renamed).toEqual({ copies: 0, generated: 0.5 });
  });
});
