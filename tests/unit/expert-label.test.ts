// The expert's next turn at any state (agent/expert-label.ts) and what a relabeling round makes of it
// (train/sft/relabel-data.ts), on two-hop chains synthesized on the fixture graph and played on the compact web.
import { describe, expect, it } from 'vitest';
import type { QA, Trajectory } from '../../main/lab/formats';
import { fixtureGraph } from '../support/fixture-graph';
import { synthesize } from '../../main/lab/synth/build';
import { SimWeb } from '../../main/lab/agent/web';
import { simToolset } from '../../main/lab/agent/env';
import { createExpert } from '../../main/lab/agent/expert';
import { expertFinish, expertNextTurn, sameAction, turnKind, type TurnKind } from '../../main/lab/agent/expert-label';
import { terseReconstructor } from '../../main/lab/agent/thoughts';
import { rolloutOne } from '../../main/lab/agent/rollout';
import { finalAnswerNotice, type AgentStep } from '../../main/lab/agent/react';
import type { PolicyFactory } from '../../main/lab/agent/policies';
import { normalizeAnswer } from '../../main/lab/agent/text';
import { trainTokenizer } from '../../main/lab/model/tokenizer';
import { labelRow, labelRows, labelTrajectory, roundMetrics, type RelabeledStep } from '../../main/lab/train/sft/relabel-data';
import { roundQuestions } from '../../main/lab/train/sft/relabel-stage';
import { parseRunConfig, relabelSteps } from '../../main/lab/contract/run-config';

const graph = fixtureGraph();
const web = new SimWeb(graph, { topK: 3, snippetChars: 160, maxEvidence: 3 });
const tools = simToolset(web);
const names = new Map(graph.nodes.map((n) => [n.id, n.name]));
const opts = { compact: true, freshForcedAnswer: true, anchorName: (id: string) => names.get(id) };
const chains = synthesize(graph, { count: 30, rng: 3, kinds: [], anchorProb: 1, maxConstraints: 0, perShape: 100_000, minEdges: 2, maxEdges: 2 }).qas;
const oneHop = synthesize(graph, { count: 10, rng: 4, kinds: [], anchorProb: 1, maxConstraints: 0, perShape: 100_000, minEdges: 1, maxEdges: 1 }).qas;
const task = (qa: QA) => ({ id: qa.id, question: qa.question, query: qa.query });
/** The expert as the RFT data's compact expert, without the RNG that varies its goals' order. */
const expert: PolicyFactory = { spec: 'oracle', kind: 'oracle', forQA: (qa) => createExpert(task(qa), opts), reconstruct: terseReconstructor };
const play = (qa: QA, maxToolCalls = 12): Promise<Trajectory> => rolloutOne(qa, 0, expert, tools, { n: 1, seed: 5, limits: { maxToolCalls } });
const obsText = (steps: readonly AgentStep[]): string => steps.map((s) => s.observation ?? '').join('\n').toLowerCase();

describe('the expert at any state', () => {
  it('reproduces its own next turn, thought and action, on every prefix of its own episodes', async () => {
    const kinds = new Map<TurnKind, number>();
    let states = 0;
    for (const qa of [...chains, ...oneHop]) {
      // Full budget, and a short one that ends in the runtime's forced answer.
      for (const budget of [12, 2]) {
        const steps = (await play(qa, budget)).steps as AgentStep[];
        for (let i = 0; i < steps.length; i++) {
          const label = await expertNextTurn(task(qa), steps.slice(0, i), opts, terseReconstructor);
          expect(label).toEqual({ think: steps[i]!.think, action: steps[i]!.action });
          const kind = turnKind(label.action, steps.slice(0, i))!;
          kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
          states++;
        }
      }
    }
    expect(chains.length).toBeGreaterThanOrEqual(20);
    expect(states).toBeGreaterThan(200);
    // Chains hop: the expert searches a bridge it read on the anchor's page (or visits it, when a search showed its URL).
    expect(kinds.get('bridge_search')).toBeGreaterThan(0);
    expect(kinds.get('first_search')).toBeGreaterThan(40);
  });

  it("on an agent's prefix it answers only from what the observations showed, never the hidden answer", async () => {
    let unknown = 0;
    let fromPage = 0;
    for (const qa of chains) {
      const steps = (await play(qa)).steps as AgentStep[];
      // The agent's states: every prefix, cut off by the runtime's final-answer notice.
      for (let i = 1; i < steps.length; i++) {
        const prefix = steps.slice(0, i).map((s) => ({ ...s }));
        prefix[i - 1]!.observation = `${prefix[i - 1]!.observation}\n\n${finalAnswerNotice('tool call')}`;
        const label = await expertNextTurn(task(qa), prefix, opts, terseReconstructor);
        expect(label.action.name).toBe('answer');
        const answer = String(label.action.arguments.answer);
        if (answer === 'unknown') unknown++;
        else {
          expect(obsText(prefix)).toContain(answer.toLowerCase());
          fromPage++;
        }
      }
      // An agent that read nothing of the chain (a search for another name) is told to search the anchor, and
      // forced to answer there, knows nothing.
      const stray: AgentStep[] = [{ think: 'Search "Nowhere".', action: { name: 'search', arguments: { query: ['Nowhere'] } }, observation: web.search(['Nowhere']) }];
      const next = await expertNextTurn(task(qa), stray, opts, terseReconstructor);
      expect(next.action.name).toBe('search');
      const anchors = [...new Set(qa.query.patterns.flatMap((p) => [p.s, p.o]).filter((x) => !x.startsWith('?')))].map((id) => names.get(id));
      expect(next.action.arguments.query).toEqual(anchors);
      stray[0]!.observation += `\n\n${finalAnswerNotice('tool call')}`;
      const forced = await expertNextTurn(task(qa), stray, opts, terseReconstructor);
      expect(normalizeAnswer(String(forced.action.arguments.answer))).not.toBe(normalizeAnswer(qa.answer));
    }
    expect(unknown).toBeGreaterThan(0);
    expect(fromPage).toBeGreaterThan(0);
  });

  it('takes over from a state and finishes: right from a good state, unknown when forced with nothing read', async () => {
    const qa = chains[0]!;
    const steps = (await play(qa)).steps as AgentStep[];
    expect(normalizeAnswer(await expertFinish(task(qa), steps.slice(0, 1), opts, tools, 12))).toBe(normalizeAnswer(qa.answer));
    const forced: AgentStep[] = [{ ...steps[0]!, observation: `${steps[0]!.observation}\n\n${finalAnswerNotice('tool call')}` }];
    expect(await expertFinish(task(qa), forced, opts, tools, 12)).toBe('unknown');
  });

  it('compares actions by tool and arguments, goals aside', () => {
    const visit = (url: string[], goal: string) => ({ name: 'visit', arguments: { url, goal } });
    expect(sameAction(visit(['sim://a', 'sim://b'], 'x'), visit(['sim://b', 'sim://a'], 'y'))).toBe(true);
    expect(sameAction(visit(['sim://a'], 'x'), visit(['sim://b'], 'x'))).toBe(false);
    expect(sameAction({ name: 'answer', arguments: { answer: 'The Hague' } }, { name: 'answer', arguments: { answer: 'the hague' } })).toBe(true);
    expect(sameAction({ name: 'search', arguments: { query: ['a'] } }, visit(['a'], ''))).toBe(false);
  });
});

describe('a relabeling round', () => {
  it('labels every state of a stray agent episode, keeps those the expert can finish, and counts agreement by kind', async () => {
    // A chain whose expert episode goes on after reading the anchor's page (to the bridge's page or a search for it).
    let qa = chains[0]!;
    let good: AgentStep[] = [];
    for (const q of chains) {
      good = (await play(q)).steps as AgentStep[];
      qa = q;
      if (good.length > 3 && good[2]!.action.name !== 'answer') break;
    }
    // The agent opens like the expert, then answers the bridge one hop early.
    const bridgeAnswer = { think: 'Answer: x.', action: { name: 'answer', arguments: { answer: 'Nowhere' } } };
    const agent: Trajectory = { ...(await play(qa)), steps: [good[0]!, good[1]!, bridgeAnswer], reward: { format: 1, answer: 0, total: 0.1 } };
    const labelled = await labelTrajectory(agent, qa, { expert: opts, thought: terseReconstructor, tools, maxToolCalls: 12 });
    const labels = (labelled.steps as RelabeledStep[]).map((s) => s.expert!);
    expect(labels.map((l) => l.agrees)).toEqual([true, true, false]);
    expect(labels.map((l) => l.kind)).toEqual(['first_search', 'visit', turnKind(good[2]!.action, good.slice(0, 2))]);
    expect(labels[2]!.action).toEqual(good[2]!.action);
    expect(labels.every((l) => l.kept)).toBe(true);
    const m = roundMetrics([labelled]);
    expect(m).toMatchObject({ 'relabel/states': 3, 'relabel/kept': 3, 'relabel/agree_first_search': 1, 'relabel/rollout_pass@1': 0 });
    expect(m[`relabel/agree_${labels[2]!.kind}`]).toBe(labels[2]!.kind === 'visit' ? 0.5 : 0);
    expect(m['relabel/agree']).toBeCloseTo(2 / 3);
  });

  it("trains on the expert's turn only: the agent's own turns and the observations carry no loss", async () => {
    const qa = chains[2]!;
    const steps = (await play(qa)).steps as AgentStep[];
    const wrong: AgentStep = { think: 'Search "Nowhere".', action: { name: 'search', arguments: { query: ['Nowhere'] } }, observation: web.search(['Nowhere']) };
    const prefix = [steps[0]!, wrong];
    const label = await expertNextTurn(task(qa), prefix, opts, terseReconstructor);
    const tok = trainTokenizer([qa.question, ...steps.map((s) => `${s.think} ${s.observation ?? ''}`)], { vocabSize: 400 });
    const row = labelRow(tok, qa.question, prefix, label, 256)!;
    const trained = tok.decode(row.ids.filter((_, i) => row.mask[i] === 1));
    expect(trained).toContain(label.think);
    expect(trained).not.toContain('Nowhere');
    expect(trained).not.toContain('tool_response');
  });

  it('leaves out a label that names what the window does not show, and the states after the first mistakes', async () => {
    const qa = chains[3]!;
    const steps = (await play(qa)).steps as AgentStep[];
    const tok = trainTokenizer([qa.question, ...steps.map((s) => `${s.think} ${s.observation ?? ''}`)], { vocabSize: 400 });
    const first = await expertNextTurn(task(qa), [], opts, terseReconstructor);
    expect(labelRow(tok, qa.question, [], first, 256)).toBeDefined(); // the anchor is in the question
    const elsewhere = { think: 'Read this page.', action: { name: 'visit', arguments: { url: ['sim://Nowhere_Land'], goal: 'x' } } };
    expect(labelRow(tok, qa.question, [], elsewhere, 256)).toBeUndefined();
    // An agent that repeats its first search: the same label (read the anchor's page) at every state, each a mistake.
    const again: AgentStep[] = [steps[0]!, steps[0]!, steps[0]!];
    const agent: Trajectory = { ...(await play(qa)), steps: again };
    const labelled = await labelTrajectory(agent, qa, { expert: opts, thought: terseReconstructor, tools, maxToolCalls: 12 });
    expect((labelled.steps as RelabeledStep[]).map((s) => s.expert!.agrees)).toEqual([true, false, false]);
    expect(labelRows(tok, [labelled], () => qa.question, 256, 1)).toHaveLength(2);
    expect(labelRows(tok, [labelled], () => qa.question, 256, 0)).toHaveLength(3);
  });

  it("draws each round's questions from those of enough edges, other ones each round", () => {
    const qas = [...chains, ...oneHop];
    const r0 = roundQuestions(qas, { questions: 10, minEdges: 2 }, 'run', 0);
    const r1 = roundQuestions(qas, { questions: 10, minEdges: 2 }, 'run', 1);
    expect(r0).toHaveLength(10);
    expect(r0.every((q) => q.subgraph.edges.length >= 2)).toBe(true);
    expect(r0.map((q) => q.id)).not.toEqual(r1.map((q) => q.id));
  });
});

describe('the run config\'s relabel section', () => {
  const data = { graphId: 'g', datasetId: 'd', heldOutDatasetId: 'h' };
  it('takes its defaults, adds its steps after SFT, and may follow a checkpoint without SFT steps', () => {
    const c = parseRunConfig({ data, relabel: {} });
    expect(c.relabel).toEqual({ rounds: 3, questions: 200, from: 'train', minEdges: 2, steps: 300, mix: 0.5, lr: 2e-4, temperature: 0, mistakes: 1, source: 'policy' });
    expect(relabelSteps(c)).toBe(900);
    expect(relabelSteps(parseRunConfig({ data }))).toBe(0);
    expect(parseRunConfig({ data, init: { checkpoint: 'run-1/3000' }, relabel: { rounds: 2 } }).sft.steps).toBe(0);
    expect(() => parseRunConfig({ data, init: { checkpoint: 'run-1/3000' } })).toThrow(/needs sft\.steps above 0/);
    expect(() => parseRunConfig({ data, relabel: { mix: 2 } })).toThrow(/relabel\.mix/);
    expect(() => parseRunConfig({ data, relabel: { source: 'oracle' } })).toThrow(/relabel\.source/);
  });
});
