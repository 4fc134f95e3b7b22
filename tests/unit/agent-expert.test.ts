import { describe, expect, it } from 'vitest';
import { demoGraph, demoQAs } from '../../main/lab/agent/demo';
import { simToolset } from '../../main/lab/agent/env';
import { createExpert } from '../../main/lab/agent/expert';
import { Notes, checkFilter, lastObservation, readSentence, readVisit, valueNumber } from '../../main/lab/agent/expert-notes';
import {
  answeredGoal,
  citedReconstructor,
  type Reconstructor,
  llmReconstructor,
  reconstructTrajectory,
  ruleThought,
  terseThought,
} from '../../main/lab/agent/thoughts';
import { resolvePolicy } from '../../main/lab/agent/policies';
import { rolloutOne } from '../../main/lab/agent/rollout';
import { runEpisode } from '../../main/lab/agent/runtime';
import { SimWeb } from '../../main/lab/agent/web';
import type { QA } from '../../main/lab/formats/index';
import type { AgentStep } from '../../main/lab/agent/react';
import { LabError } from '../../main/lab/base/errors';
import { createRng } from '../../main/lab/util/rng';

const web = new SimWeb(demoGraph());
const tools = simToolset(web);
const anchorName = (id: string) => web.page(`sim://${id}`)?.title;

describe('reading pages', () => {
  it('parses relation and attribute sentences written by the simulated web', () => {
    const notes = new Notes();
    readSentence(notes, 'FormFactor was founded by Igor Khandros.', ['founded_by'], []);
    readSentence(notes, 'The inception of FormFactor is 1 April 1993.', [], ['inception']);
    readSentence(notes, 'Fabrikam Labs was founded by Fel…', ['founded_by'], []); // truncated snippet: ignored
    expect(notes.hasEdge('formfactor', 'founded_by', 'igor khandros')).toBe(true);
    expect(notes.neighbours('igor khandros', 'founded_by', 'in')).toEqual(['formfactor']);
    expect(notes.entity('FormFactor').attrs.get('inception')).toBe('1 April 1993');
    expect(notes.entities.has('fabrikam labs')).toBe(false);
  });

  it('reads a visit observation: lead (type, aliases), URL and evidence', () => {
    const notes = new Notes();
    readVisit(notes, web.visit(['sim://formfactor'], 'inception'), [], ['inception']);
    const e = notes.entity('FormFactor');
    expect(e).toMatchObject({ type: 'company', url: 'sim://formfactor', visited: true });
    expect(e.aliases).toEqual(['FormFactor, Inc.']);
    expect(e.attrs.get('inception')).toBe('1 April 1993');
    readVisit(notes, web.visit(['sim://nope'], 'x'), [], []);
    expect(notes.failedUrls.has('sim://nope')).toBe(true);
  });

  it('turns page values into comparable numbers', () => {
    expect(valueNumber('1 April 1993')).toBe(1993);
    expect(valueNumber('June 2001')).toBe(2001);
    expect(valueNumber('44 BC')).toBe(-44);
    expect(valueNumber('2100 people')).toBe(2100);
    expect(valueNumber('-12.5 deg')).toBe(-12.5);
    expect(valueNumber('Delaware')).toBeNull();
  });

  it('checks filters as true, false or unknown', () => {
    const notes = new Notes();
    const e = notes.entity('FormFactor');
    e.aliases.push('FF Inc');
    e.attrs.set('inception', '1 April 1993');
    expect(checkFilter(e, { var: '?a', attr: 'name', op: 'prefix', value: 'ff' })).toBe(true);
    expect(checkFilter(e, { var: '?a', attr: 'name', op: 'contains', value: 'xyz' })).toBe(false);
    expect(checkFilter(e, { var: '?a', attr: 'inception', op: 'between', value: [1988, 1995] })).toBe(true);
    expect(checkFilter(e, { var: '?a', attr: 'inception', op: 'gt', value: 1995 })).toBe(false);
    expect(checkFilter(e, { var: '?a', attr: 'employees', op: 'lt', value: 10 })).toBeNull();
    expect(checkFilter(e, { var: '?a', attr: 'type', op: 'eq', value: 'company' })).toBeNull();
    e.type = 'company';
    expect(checkFilter(e, { var: '?a', attr: 'type', op: 'eq', value: 'company' })).toBe(true);
  });

  it('finds the last tool response in a context', () => {
    expect(lastObservation('prompt')).toBeNull();
    expect(lastObservation('a<tool_response>\none\n</tool_response>\nb<tool_response>\ntwo\n</tool_response>\n')).toBe('two');
  });
});

describe('the expert', () => {
  for (const qa of demoQAs()) {
    it(`solves ${qa.id} through search and visit, in well-formed ReAct`, async () => {
      const oracle = resolvePolicy('oracle', { anchorName });
      const t = await rolloutOne(qa, 0, oracle, tools, { n: 1, seed: 3 });
      expect(t.prediction).toBe(qa.answer);
      expect(t.termination).toBe('answer');
      expect(t.reward).toEqual({ format: 1, answer: 1, total: 1 });
      expect(t.tool_calls).toBeGreaterThanOrEqual(2);
      // It started like any agent would: by searching the name of the entity the question names.
      expect(t.steps[0]!.action.name).toBe('search');
    });
  }

  it('needs no answer: a QA with the answer fields scrambled gives the same trajectory', async () => {
    const qa = demoQAs()[1]!;
    const scrambled: QA = { ...qa, answer: 'ZZZ', answer_id: 'n999', aliases: ['YYY'] };
    const run = async (q: QA) =>
      runEpisode({ id: 'x', qaId: q.id, question: q.question, policy: createExpert({ id: q.id, question: q.question, query: q.query }, { anchorName }), tools });
    const [a, b] = [await run(qa), await run(scrambled)];
    expect(b.steps).toEqual(a.steps);
    expect(b.prediction).toBe('FormFactor');
  });

  it('without anchor names it reads the anchors’ permalink pages', async () => {
    const qa = demoQAs()[0]!;
    const t = await runEpisode({ id: 'x', qaId: qa.id, question: qa.question, policy: createExpert(qa), tools });
    expect(t.steps[0]!.action).toMatchObject({ name: 'visit', arguments: { url: ['sim://n2'] } });
    expect(t.prediction).toBe('FormFactor');
  });

  it('compact: a named-anchor lookup is search, visit by the title URL, answer; types are taken on trust', async () => {
    const task = { id: 'q', question: 'Which company was founded by Igor Khandros?', query: { answer: '?a', patterns: [{ s: '?a', rel: 'founded_by', o: 'n2' }], filters: [{ var: '?a', attr: 'type', op: 'eq' as const, value: 'company' }] } };
    const run = (compact: boolean) => runEpisode({ id: 'x', qaId: 'q', question: task.question, policy: createExpert(task, { anchorName, compact }), tools });
    const lean = await run(true);
    expect(lean.steps.map((s) => s.action.name)).toEqual(['search', 'visit', 'answer']);
    expect(lean.steps[1]!.action.arguments).toMatchObject({ url: ['sim://Igor_Khandros'] });
    expect(lean.prediction).toBe('FormFactor');
    // The full expert also searches the relation phrase and reads the candidate's page to confirm its type.
    const full = await run(false);
    expect(full.prediction).toBe('FormFactor');
    expect(full.tool_calls).toBeGreaterThan(lean.tool_calls);
  });

  it('is imperfect: out of its own budget it answers a best guess', async () => {
    const qa = demoQAs()[1]!;
    const policy = createExpert(qa, { anchorName, maxCalls: 2 });
    const t = await runEpisode({ id: 'x', qaId: qa.id, question: qa.question, policy, tools });
    expect(t.termination).toBe('answer');
    expect(t.tool_calls).toBe(2);
    expect(t.prediction).toBe('unknown'); // the founders were found, their companies not yet
  });

  it('answers at once when the runtime forces a final answer', async () => {
    const qa = demoQAs()[1]!;
    const t = await runEpisode({ id: 'x', qaId: qa.id, question: qa.question, policy: createExpert(qa, { anchorName }), tools, limits: { maxToolCalls: 1 } });
    expect(t.termination).toBe('max_steps');
    expect(t.steps.at(-1)!.action.name).toBe('answer');
  });
});

describe('reasoning reconstruction', () => {
  it('replaces every thought, keeps actions and observations, and varies with the rng', async () => {
    const qa = demoQAs()[1]!;
    const t = await runEpisode({ id: 'x', qaId: qa.id, question: qa.question, policy: createExpert(qa, { anchorName }), tools });
    const r = await reconstructTrajectory(t, qa.question, async (i) => ruleThought(i), createRng(1));
    expect(r.steps.map((s) => s.action)).toEqual(t.steps.map((s) => s.action));
    expect(r.steps.map((s) => s.observation)).toEqual(t.steps.map((s) => s.observation));
    r.steps.forEach((s, i) => {
      expect(s.think.length).toBeGreaterThan(10);
      expect(s.think).not.toBe(t.steps[i]!.think);
    });
    // The thought before a visit cites the titles of the preceding search, not facts from its own result.
    const visitAfterSearch = r.steps.findIndex((s, i) => s.action.name === 'visit' && r.steps[i - 1]?.action.name === 'search');
    expect(r.steps[visitAfterSearch]!.think).toMatch(/^The results mention /);
    expect(r.steps.at(-1)!.think).toContain('FormFactor');
  });

  it('the LLM reconstructor sends (question, history, action, result) and falls back to rules on failure', async () => {
    const prompts: string[] = [];
    const good = llmReconstructor(async (m) => {
      prompts.push(m[0]!.content);
      return '  I should look up the founder.  ';
    });
    const input = { question: 'Q?', history: [], action: { name: 'search', arguments: { query: ['x'] } }, observation: 'obs' };
    expect(await good(input)).toBe('I should look up the founder.');
    expect(prompts[0]).toContain('Question: Q?');
    expect(prompts[0]).toContain('Next action: {"name":"search"');
    const broken: Reconstructor = llmReconstructor(async () => {
      throw new Error('down');
    });
    expect(await broken(input)).toBe(ruleThought(input));
  });
});

describe('rule thoughts', () => {
  const first = (question: string, query: string[]) => ruleThought({ question, history: [], action: { name: 'search', arguments: { query } }, observation: 'obs' });

  it('calls a query a name only when the question gives that name', () => {
    expect(first('Which river flows through Vienna and Budapest?', ['Vienna'])).toMatch(/names "Vienna" outright|"Vienna" is the one concrete name/);
  });

  it('does not claim the question names an entity when it searches the question itself or type words', () => {
    const q = 'Consider a language family that a language is a member of. Which language is meant here?';
    const thought = first(q, ['Consider a language family that a language is a member of', 'language family', 'language']);
    expect(thought).not.toMatch(/names|concrete name/);
  });
});

describe('terse thoughts (compact RFT style)', () => {
  const thought = (name: string, args: Record<string, unknown>) => terseThought({ question: 'Q?', history: [], action: { name, arguments: args }, observation: 'obs' });

  it('names what is searched, how many pages are read, and the answer after a fixed first word', () => {
    expect(thought('search', { query: ['Vienna'] })).toBe('Search "Vienna".');
    expect(thought('search', { query: ['Vienna', 'Danube'] })).toBe('Search "Vienna" and "Danube".');
    expect(thought('visit', { url: ['sim://vienna'], goal: 'x' })).toBe('Read this page.');
    expect(thought('visit', { url: ['sim://a', 'sim://b'], goal: 'x' })).toBe('Read these 2 pages.');
    expect(thought('answer', { answer: 'Danube' })).toBe('Answer: Danube.');
  });

  it('cites the slot of the last goal that the answer fills (cited style), and only that', () => {
    const visit = (goal: string, observation: string): AgentStep => ({ think: '', action: { name: 'visit', arguments: { url: ['sim://Chile'], goal } }, observation });
    const page = 'Evidence in page: \nChile uses currency Chilean peso.\nChile has used currency Chilean Escudo.\n';
    const cited = (history: AgentStep[], answer: string) => terseThought({ question: 'Q?', history, action: { name: 'answer', arguments: { answer } }, observation: undefined }, { citeGoal: true });
    // The answer after the relation phrase: the object slot; before it: the subject slot.
    expect(cited([visit('what kind of entity it is and what it uses currency', page)], 'Chilean peso')).toBe('Answer (what it uses currency): Chilean peso.');
    expect(answeredGoal([visit('what has used currency it', 'Chile has used currency Chilean Escudo.')], 'Chile')).toBe('what has used currency it');
    // A part whose line holds the answer on the other side, an answer from a search, or none: a bare answer.
    expect(answeredGoal([visit('what it uses currency', page)], 'Chile')).toBeUndefined();
    expect(cited([{ think: '', action: { name: 'search', arguments: { query: ['Chile'] } }, observation: page }], 'Chilean peso')).toBe('Answer: Chilean peso.');
    expect(cited([], 'Chile')).toBe('Answer: Chile.');
    expect(thought('answer', { answer: 'Chilean peso' })).toBe('Answer: Chilean peso.');
  });

  it('in expert rollouts, cites a part of the goal of the page the answer was read from', async () => {
    const expert = resolvePolicy('oracle', { anchorName, expert: { compact: true }, reconstructor: citedReconstructor });
    let cited = 0;
    for (const qa of demoQAs()) {
      const t = await rolloutOne(qa, 0, expert, tools, { n: 1, seed: 3 });
      const [last, before] = [t.steps.at(-1)!, t.steps.at(-2)];
      const m = /^Answer \((.+)\): (.+)\.$/.exec(last.think ?? '');
      if (!m) continue;
      cited++;
      expect(m[2]).toBe(last.action.arguments.answer);
      expect(before?.action.name).toBe('visit');
      expect(String(before?.action.arguments.goal).split(/, | and /)).toContain(m[1]);
    }
    expect(cited).toBeGreaterThan(0);
  });

  it('does not repeat a long query (the question searched as a description)', () => {
    expect(thought('search', { query: ['x'.repeat(80), 'river'] })).toBe('Search the description.');
  });
});

describe('policy registry', () => {
  it('rejects unknown kinds with a clear unsupported error', () => {
    expect(() => resolvePolicy('ckpt:run-1/200')).toThrow(LabError);
    expect(() => resolvePolicy('ckpt:run-1/200')).toThrow(/policy 'ckpt:run-1\/200' is not supported yet/);
    expect(() => resolvePolicy('llm:qwen')).toThrow(/needs an OpenAI-compatible server/);
  });
});
