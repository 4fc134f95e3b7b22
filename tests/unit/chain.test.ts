// Chained questions: the bridge entity, what the policy's windows keep of it, why an episode failed, and the
// compact thought that carries the bridge forward. Hand-made episodes on "Vance Air Force Base serves a city.
// Which country contains the city?" (bridge Enid, answer United States).
import { describe, expect, it } from 'vitest';
import type { AgentStep } from '../../main/lab/agent/react';
import { carriedEntity, terseThought } from '../../main/lab/agent/thoughts';
import { bridgeIds, chainViews, classifyChain } from '../../main/lab/train/policy/chain';
import { nearCopy } from '../../main/lab/agent/mentions';
import { answer, hop, s1, s2, search, visit } from '../support/chain-steps';

const question = 'Vance Air Force Base serves a city. Which country contains the city?';
const episode = (steps: AgentStep[], prediction: string | null, windows?: string[]) => ({
  steps, bridges: ['Enid'], correct: prediction === 'United States', prediction,
  // By default every window shows everything read so far.
  windows: windows ?? steps.map((_, i) => [question, ...steps.slice(0, i).map((s) => s.observation ?? '')].join('\n')),
});

describe('bridgeIds', () => {
  it('is the subgraph less the named entities and the answer', () => {
    const qa = { answer_id: 'country:USA', subgraph: { nodes: ['airport:KEND', 'city:1', 'country:USA'], edges: [] },
      query: { answer: '?a', patterns: [{ s: 'airport:KEND', rel: 'serves_city', o: '?x' }, { s: '?x', rel: 'located_in', o: '?a' }], filters: [] } };
    expect(bridgeIds(qa)).toEqual(['city:1']);
  });
});

describe('classifyChain', () => {
  it('names where the chain broke, first break first', () => {
    expect(classifyChain(episode([s1, s2, hop, answer('United States')], 'United States'))).toBe('solved');
    // The first page read was another airport's: Enid never shown.
    expect(classifyChain(episode([s1, visit('sim://Vance', 'Evidence in page:\nVance is a town.'), answer('Canada')], 'Canada'))).toBe('never_saw_bridge');
    expect(classifyChain(episode([s1, s2, hop, answer('Oklahoma')], 'Oklahoma'))).toBe('wrong_second_relation');
    expect(classifyChain(episode([s1, s2, answer('Enid')], 'Enid'))).toBe('answered_bridge');
    expect(classifyChain(episode([s1, s2, search('Enidenid', 'nothing'), answer('Kansas')], 'Kansas'))).toBe('copied_wrong');
    expect(classifyChain(episode([s1, s2, search('Air Force', 'nothing'), answer('Kansas')], 'Kansas'))).toBe('did_not_chain');
    // The same episode, but the window before its last turn no longer shows Enid.
    const steps = [s1, s2, search('Air Force', 'nothing'), answer('Kansas')];
    expect(classifyChain(episode(steps, 'Kansas', [question, question, `${question}\nEnid`, `${question}\nnothing`]))).toBe('lost_from_context');
  });

  it('tells a near copy from an unrelated word', () => {
    expect(nearCopy('sim://Enidd', 'Enid')).toBe(true);
    expect(nearCopy('Andrés Manuel', 'Andrés Manuel del Río')).toBe(true);
    expect(nearCopy('sim://Enid', 'Enid')).toBe(false); // the name itself
    expect(nearCopy('Kansas City', 'Enid')).toBe(false);
  });
});

describe('chainViews', () => {
  it('says per turn whether the question is pinned and the bridge and the answer are in view', () => {
    const steps = [s1, s2, hop, answer('United States')];
    const windows = [`Question: ${question}`, `Question: ${question}\n${s1.observation}`, `Question: ${question}\n${s2.observation}`, `Question: ${question}\nEnid is located in United States.`];
    const v = chainViews({ question, steps, windows, bridges: ['Enid'], answers: ['United States'] });
    expect(v.map((x) => x.questionPinned)).toEqual([true, true, true, true]);
    expect(v.map((x) => x.bridgeSeen)).toEqual([false, false, true, true]);
    expect(v.map((x) => x.bridgeInView)).toEqual([false, false, true, true]);
    expect(v.map((x) => x.usesBridge)).toEqual([false, false, true, false]);
    expect(v.map((x) => x.answerInView)).toEqual([null, null, null, true]);
  });
});

describe('the compact thought carries the bridge forward', () => {
  const at = (history: AgentStep[], action: AgentStep['action']) => ({ question, history, action, observation: undefined });
  it('names the bridge where the episode hops to it, read from the page before', () => {
    expect(carriedEntity(at([s1, s2], hop.action))).toBe('Enid');
    expect(terseThought(at([s1, s2], hop.action))).toBe('Found: Enid. Search "Enid".');
    // A visit by URL: the title is the name.
    expect(terseThought(at([s1, s2], { name: 'visit', arguments: { url: ['sim://Enid'], goal: 'g' } }))).toBe('Found: Enid. Read this page.');
  });
  it('says nothing more for what the question names, an entity already visited, or the answer', () => {
    expect(terseThought(at([s1], s2.action))).toBe('Read this page.'); // the question names Vance Air Force Base
    expect(carriedEntity(at([s1, s2, hop], { name: 'search', arguments: { query: ['Enid'] } }))).toBeUndefined();
    expect(terseThought(at([s1, s2, hop], { name: 'answer', arguments: { answer: 'United States' } }))).toBe('Answer: United States.');
    expect(carriedEntity(at([], s1.action))).toBeUndefined();
  });
});
