// The failure breakdown (agent/failures.ts): hand-made episodes on one one-hop question, one per class, each
// checked against the class a reader would give it; and the counts over a set, as an evaluation reports them.
import { describe, expect, it } from 'vitest';
import type { AgentStep } from '../../main/lab/agent/react';
import type { Termination, Trajectory } from '../../main/lab/formats';
import { classifyFailure, failureCounts, goldLookup, isRepetitionLoop, type Gold } from '../../main/lab/agent/failures';
import { evaluationSummary } from '../../main/lab/agent/summary';
import { FAILURE_CLASSES, failuresOf } from '../../main/lab/contract';

const gold: Gold = { question: 'Vance Air Force Base serves which city?', answers: ['Enid', 'Enid, Oklahoma'] };
const search = (q: string, obs: string): AgentStep => ({ think: '', action: { name: 'search', arguments: { query: [q] } }, observation: obs });
const visit = (url: string, obs: string): AgentStep => ({ think: '', action: { name: 'visit', arguments: { url: [url], goal: 'g' } }, observation: obs });
const answer = (a: string): AgentStep => ({ think: '', action: { name: 'answer', arguments: { answer: a } } });
const found = search('Vance Air Force Base', '1. [Vance Air Force Base](sim://Vance_Air_Force_Base)\nVance Air Force Base is an airport.');
const read = visit('sim://Vance_Air_Force_Base', 'Evidence in page:\nVance Air Force Base serves city Enid.');
const elsewhere = visit('sim://Vance', 'Evidence in page:\nVance is a town in Texas.');

let n = 0;
function episode(steps: AgentStep[], termination: Termination = 'answer', correct = false): Trajectory {
  const last = steps.at(-1);
  const prediction = termination === 'answer' && last?.action.name === 'answer' ? String(last.action.arguments.answer) : null;
  return {
    id: `t${n}`, qa_id: `q${n++}`, policy: 'ckpt:r/1', steps, prediction, termination,
    reward: { format: 1, answer: correct ? 1 : 0, total: correct ? 1 : 0.1 },
    tool_calls: steps.filter((s) => s.action.name !== 'answer').length, tokens: { generated: 30, observation: 60 },
  };
}

const cases: Array<[string, Trajectory]> = [
  ['solved', episode([found, read, answer('Enid')], 'answer', true)],
  // Greedy decoding stuck inside a name it cannot copy; the episode runs out of tokens.
  ['repetition_loop', episode([found, { think: '', action: { name: 'format_error', arguments: {} }, raw: 'Search "La Paz Base Base Base Base Base' } as AgentStep], 'max_tokens')],
  ['repetition_loop', episode([found, search('Enid', 'nothing'), search('Enid', 'nothing'), search('Enid', 'nothing')], 'max_steps')],
  ['format_error', episode([found, { think: '', action: { name: 'format_error', arguments: {} }, raw: '<tool_call>{"name": "search"' } as AgentStep], 'format_error')],
  // Three short malformed turns end the episode: a format error, not a loop, though each turn reads alike.
  ['format_error', episode([1, 2, 3].map(() => ({ think: '', action: { name: 'format_error', arguments: {} }, raw: 'Enid' }) as AgentStep), 'format_error')],
  ['out_of_calls', episode([found, read, search('Enid airport', 'nothing')], 'max_steps')],
  ['repeated_question_entity', episode([found, read, answer('Vance Air Force Base')])],
  // Enid stood on the page it read; it answered another name.
  ['wrong_answer_in_view', episode([found, read, answer('Oklahoma City')])],
  ['never_saw_answer', episode([found, elsewhere, answer('Austin')])],
];

describe('classifyFailure', () => {
  it.each(cases)('%s', (cls, t) => {
    expect(classifyFailure(t, gold)).toBe(cls);
  });

  it('leaves infrastructure failures out (not the model\'s)', () => {
    expect(classifyFailure(episode([found], 'policy_error'), gold)).toBeNull();
    expect(classifyFailure(episode([found], 'tool_error'), gold)).toBeNull();
  });

  it('a loop wins over how the episode ended, even a wrong answer', () => {
    expect(classifyFailure(episode([found, read, answer('Brusselselselsel')]), gold)).toBe('repetition_loop');
  });

  it('an alias in view counts as the answer in view', () => {
    const alias = visit('sim://Vance_Air_Force_Base', 'Evidence in page:\nIt serves Enid, Oklahoma.');
    expect(classifyFailure(episode([found, alias, answer('Tulsa')]), { ...gold, answers: ['Enid, Oklahoma'] })).toBe('wrong_answer_in_view');
  });
});

describe('isRepetitionLoop', () => {
  it('does not take ordinary text or two repeats for a loop', () => {
    expect(isRepetitionLoop([found, read, answer('Mississippi')])).toBe(false);
    expect(isRepetitionLoop([found, search('Enid', 'x'), search('Enid', 'x'), answer('Enid')])).toBe(false);
    expect(isRepetitionLoop([{ think: '-------- ........', action: { name: 'answer', arguments: { answer: '1111' } } }])).toBe(false);
  });
});

describe('failureCounts and the evaluation summary', () => {
  const trajs = [...cases.map(([, t]) => t), episode([found], 'tool_error')];
  const qas = trajs.map((t) => ({ id: t.qa_id, question: gold.question, answer: 'Enid', aliases: ['Enid, Oklahoma'] }));

  it('counts each class; infrastructure failures and questions not found are left out', () => {
    const counts = failureCounts(trajs, goldLookup(qas.slice(1)));
    expect(counts).toEqual({ solved: 0, repetition_loop: 2, format_error: 2, out_of_calls: 1, repeated_question_entity: 1, wrong_answer_in_view: 1, never_saw_answer: 1 });
  });

  it('the evaluation reports the breakdown and its summary carries it for the dashboard', () => {
    const { report, summary } = evaluationSummary(trajs, 1, goldLookup(qas));
    expect(report.failures).toEqual({ solved: 1, repetition_loop: 2, format_error: 2, out_of_calls: 1, repeated_question_entity: 1, wrong_answer_in_view: 1, never_saw_answer: 1 });
    expect(failuresOf(summary)).toEqual(report.failures);
    expect(FAILURE_CLASSES.reduce((a, c) => a + report.failures![c], 0)).toBe(trajs.length - 1);
    // The solved count over the episodes classified is pass@1 here (one sample per question).
    expect(report.failures!.solved / (trajs.length - 1)).toBeCloseTo(report['pass@1'], 12);
  });

  it('a set without its questions has no breakdown', () => {
    expect(evaluationSummary(trajs, 1).report.failures).toBeUndefined();
    expect(failuresOf(evaluationSummary(trajs, 1).summary)).toBeNull();
  });
});
