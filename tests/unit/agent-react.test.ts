import { describe, expect, it } from 'vitest';
import { demoGraph } from '../../main/lab/agent/demo';
import { simToolset } from '../../main/lab/agent/env';
import { type AgentStep, parseTurn, renderPrompt, renderTrajectory, systemPrompt } from '../../main/lab/agent/react';
import { formatScore } from '../../main/lab/agent/reward';
import { type Policy, runEpisode } from '../../main/lab/agent/runtime';
import { SimWeb } from '../../main/lab/agent/web';

const SEARCH = '<tool_call>\n{"name": "search", "arguments": {"query": ["Moscow"]}}\n</tool_call>';
const web = new SimWeb(demoGraph());
const tools = simToolset(web);

/** A policy that replays outputs; `final` answers once the runtime asks for a final answer. */
function scripted(outputs: string[], final?: string): Policy & { contexts: string[] } {
  const contexts: string[] = [];
  let i = 0;
  return {
    name: 'scripted',
    contexts,
    async generate(context) {
      contexts.push(context);
      if (final !== undefined && context.includes('Do not call any more tools')) return final;
      return outputs[Math.min(i++, outputs.length - 1)]!;
    },
  };
}

describe('parseTurn', () => {
  it('accepts a well-formed tool call and normalises a single query string', () => {
    const t = parseTurn('<think>\nlook it up\n</think>\n<tool_call>\n{"name": "search", "arguments": {"query": "Moscow"}}\n</tool_call>\n');
    expect(t.kind).toBe('tool');
    expect(t.think).toBe('look it up');
    expect(t.action).toEqual({ name: 'search', arguments: { query: ['Moscow'] } });
    expect(t.formatValid).toBe(true);
    expect(t.issues).toEqual([]);
  });

  it('a tag inside the answer, the tool call or the thought breaks the format', () => {
    const cases = [
      `<think>x</think><answer>${SEARCH}</answer>`,
      '<think>x</think><answer><think>y</think>Moscow</answer>',
      `<think>I will write ${SEARCH} next</think><answer>Moscow</answer>`,
      '<think>the <answer>Moscow</answer> it is</think><answer>Moscow</answer>',
      '<think>x</think><tool_call>\n{"name": "search", "arguments": {"query": "<answer>"}}\n</tool_call>',
    ];
    for (const text of cases) {
      const t = parseTurn(text);
      expect(t.issues, text).toContain('nested_tags');
      expect(t.formatValid, text).toBe(false);
    }
    expect(parseTurn('<think>I think 3 < 4 and a > b</think><answer>Moscow</answer>').formatValid).toBe(true);
  });

  it('two tool calls in one turn: the first wins, the format is broken', () => {
    const t = parseTurn(`<think>x</think>${SEARCH}\n<tool_call>{"name": "visit", "arguments": {"url": ["sim://a"], "goal": "g"}}</tool_call>`);
    expect(t.kind).toBe('tool');
    expect(t.action?.name).toBe('search');
    expect(t.issues).toContain('multiple_actions');
    expect(t.formatValid).toBe(false);
  });

  it('a tool call without its closing tag is not run', () => {
    const t = parseTurn('<think>x</think><tool_call>{"name": "search", "arguments": {"query": ["a"]}}');
    expect(t.kind).toBe('invalid');
    expect(t.error).toMatch(/not closed with <\/tool_call>/);
    expect(t.issues).toContain('unclosed_tool_call');
  });

  it('an answer without its closing tag is still the answer, but malformed', () => {
    const t = parseTurn('<think>x</think><answer>FormFactor');
    expect(t.kind).toBe('answer');
    expect(t.action?.arguments.answer).toBe('FormFactor');
    expect(t.formatValid).toBe(false);
  });

  it('invalid JSON gives an error observation', () => {
    const t = parseTurn('<think>x</think><tool_call>{"name": "search", "arguments": {query: [1]}</tool_call>');
    expect(t.kind).toBe('invalid');
    expect(t.error).toMatch(/^\[format error\] The content of <tool_call> is not valid JSON/);
    expect(t.issues).toContain('invalid_json');
  });

  it('an unknown tool gives an error observation naming the available tools', () => {
    const t = parseTurn('<think>x</think><tool_call>{"name": "python", "arguments": {"code": "1"}}</tool_call>');
    expect(t.kind).toBe('invalid');
    expect(t.error).toBe("[format error] Unknown tool 'python'. Available tools: search, visit; give the final answer in <answer></answer>.");
  });

  it('bad arguments give the tool’s own message', () => {
    const t = parseTurn('<think>x</think><tool_call>{"name": "visit", "arguments": {"url": "sim://a"}}</tool_call>');
    expect(t.kind).toBe('invalid');
    expect(t.error).toMatch(/'goal' must be a string/);
  });

  it('a generated <tool_response> is cut away with everything after it', () => {
    const t = parseTurn(`<think>x</think>${SEARCH}\n<tool_response>Moscow is on Mars</tool_response><think>so</think><answer>Mars</answer>`);
    expect(t.kind).toBe('tool');
    expect(t.text).not.toContain('Mars');
    expect(t.issues).toEqual(['hallucinated_observation']);
    expect(t.formatValid).toBe(false);
  });

  it('an answer without think is accepted but malformed', () => {
    const t = parseTurn('<answer>FormFactor</answer>');
    expect(t.kind).toBe('answer');
    expect(t.issues).toEqual(['missing_think']);
    expect(t.formatValid).toBe(false);
  });

  it('empty output', () => {
    expect(parseTurn('').kind).toBe('empty');
    expect(parseTurn('  \n').issues).toContain('empty');
  });

  it('text with no action', () => {
    const t = parseTurn('<think>I wonder</think> maybe Paris');
    expect(t.kind).toBe('invalid');
    expect(t.issues).toContain('no_action');
  });

  it('the answer may also come as an answer tool call', () => {
    const t = parseTurn('<think>done</think><tool_call>{"name": "answer", "arguments": {"answer": "Kazan"}}</tool_call>');
    expect(t.kind).toBe('answer');
    expect(t.formatValid).toBe(true);
  });
});

describe('system prompt and rendering', () => {
  it('declares search and visit and the answer tag', () => {
    const s = systemPrompt();
    expect(s).toContain('"name":"search"');
    expect(s).toContain('"name":"visit"');
    expect(s).toContain('<answer></answer>');
    expect(renderPrompt('Q?')).toBe(`${s}\n\nQuestion: Q?\n\n`);
  });

  it('spans tile the text and label every segment', () => {
    const steps: AgentStep[] = [
      { think: 'a', action: { name: 'search', arguments: { query: ['x'] } }, observation: 'obs1' },
      { think: 'b', action: { name: 'format_error', arguments: {} }, raw: '<think>b</think><tool_call>{bad', issues: ['unclosed_tool_call'], observation: 'err' },
      { think: 'c', action: { name: 'answer', arguments: { answer: 'Y' } } },
    ];
    const { text, spans } = renderTrajectory('Q?', steps);
    expect(spans[0]).toMatchObject({ kind: 'prompt', start: 0, step: -1 });
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBe(spans[i - 1]!.end);
    expect(spans[spans.length - 1]!.end).toBe(text.length);
    expect(spans.map((s) => s.kind)).toEqual(['prompt', 'think', 'action', 'observation', 'think', 'action', 'observation', 'think', 'action']);
    const slice = (i: number) => text.slice(spans[i]!.start, spans[i]!.end);
    expect(slice(1)).toBe('<think>\na\n</think>\n');
    expect(slice(2)).toBe('<tool_call>\n{"name":"search","arguments":{"query":["x"]}}\n</tool_call>\n');
    expect(slice(3)).toBe('<tool_response>\nobs1\n</tool_response>\n');
    expect(slice(4)).toBe('<think>b</think>'); // the raw text of a malformed turn, as generated
    expect(slice(5)).toBe('<tool_call>{bad\n');
    expect(slice(8)).toBe('<answer>Y</answer>');
  });
});

describe('runEpisode', () => {
  it('runs tools until the answer; the context is always the rendered trajectory so far', async () => {
    const p = scripted([`<think>find</think>${SEARCH}`, '<think>done</think>\n<answer>Moscow</answer>']);
    const t = await runEpisode({ id: 't1', qaId: 'q1', question: 'Where?', policy: p, tools });
    expect(t.termination).toBe('answer');
    expect(t.prediction).toBe('Moscow');
    expect(t.tool_calls).toBe(1);
    expect(t.steps[0]!.observation).toMatch(/^A search for 'Moscow'/);
    expect(p.contexts[0]).toBe(renderTrajectory('Where?', []).text);
    expect(p.contexts[1]).toBe(renderTrajectory('Where?', t.steps.slice(0, 1)).text);
    expect(formatScore(t)).toBe(1);
    expect(t.tokens.generated).toBeGreaterThan(0);
    expect(t.tokens.observation).toBeGreaterThan(0);
  });

  it('at the tool-call limit the agent is asked once for a final answer (max_steps)', async () => {
    const p = scripted([`<think>again</think>${SEARCH}`], '<think>enough</think><answer>Kazan</answer>');
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: p, tools, limits: { maxToolCalls: 2 } });
    expect(t.termination).toBe('max_steps');
    expect(t.limit).toBe('tool_calls');
    expect(t.prediction).toBe('Kazan');
    expect(t.steps).toHaveLength(3);
    expect(t.steps[1]!.observation).toMatch(/You have reached the tool call limit\. Do not call any more tools/);
    expect(p.contexts[2]).toBe(renderTrajectory('Q', t.steps.slice(0, 2)).text);
  });

  it('a policy that keeps calling tools after the notice ends without a prediction', async () => {
    const p = scripted([`<think>again</think>${SEARCH}`]);
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: p, tools, limits: { maxToolCalls: 1 } });
    expect(t.termination).toBe('max_steps');
    expect(t.prediction).toBeNull();
    expect(t.tool_calls).toBe(1); // the extra call was not run
    expect(formatScore(t)).toBe(0);
  });

  it('the context budget ends the episode as max_tokens', async () => {
    const p = scripted([`<think>again</think>${SEARCH}`], '<think>ok</think><answer>A</answer>');
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: p, tools, limits: { maxTokens: 900 } });
    expect(t.termination).toBe('max_tokens');
    expect(t.limit).toBe('tokens');
    expect(t.prediction).toBe('A');
  });

  it('the wall-time limit also forces the final answer', async () => {
    let now = 0;
    const p = scripted([`<think>again</think>${SEARCH}`], '<think>ok</think><answer>A</answer>');
    const t = await runEpisode({
      id: 't', qaId: 'q', question: 'Q', policy: p, tools, limits: { maxTimeMs: 1000 },
      now: () => (now += 400),
    });
    expect(t.limit).toBe('time');
    expect(t.termination).toBe('max_steps');
    expect(t.prediction).toBe('A');
  });

  it('a turn over the per-turn token cap is not run, says why, and keeps only its start', async () => {
    const huge = `<think>${'word '.repeat(1_000_000)}</think><answer>A</answer>`; // 5 MB
    const p = scripted([huge]);
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: p, tools, limits: { maxNewTokens: 512 } });
    expect(t.termination).toBe('format_error');
    expect(t.prediction).toBeNull();
    const step = t.steps[0] as AgentStep;
    expect(step.issues).toEqual(['too_long']);
    expect(step.observation).toMatch(/The turn is \d+ tokens, over the limit of 512 tokens per turn; it was not run/);
    expect(step.raw!.length).toBeLessThanOrEqual(512 * 4);
    expect(t.tokens.generated).toBeLessThan(3 * 2048);
  });

  it('a search call over the query cap gets a clear observation', async () => {
    const queries = JSON.stringify(Array.from({ length: 5000 }, (_, i) => `q${i}`));
    const p = scripted([`<think>x</think><tool_call>{"name": "search", "arguments": {"query": ${queries}}}</tool_call>`, '<think>ok</think><answer>A</answer>']);
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: p, tools, limits: { maxNewTokens: 100_000 } });
    expect(t.steps[0]!.observation).toBe('[search] Too many queries: got 5000, the limit is 5 per call.');
  });

  it('malformed turns get error observations; three in a row end with format_error', async () => {
    const p = scripted(['<think>x</think><tool_call>{oops}</tool_call>']);
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: p, tools });
    expect(t.termination).toBe('format_error');
    expect(t.steps).toHaveLength(3);
    expect(t.steps.every((s) => s.action.name === 'format_error' && /not valid JSON/.test(s.observation!))).toBe(true);
    expect(t.tool_calls).toBe(0);
    expect(formatScore(t)).toBe(0);
  });

  it('an unknown tool, then a recovery: the answer counts but the format score is 0', async () => {
    const p = scripted(['<think>x</think><tool_call>{"name": "browse", "arguments": {}}</tool_call>', '<think>y</think><answer>Kazan</answer>']);
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: p, tools });
    expect(t.termination).toBe('answer');
    expect(t.steps[0]!.observation).toMatch(/Unknown tool 'browse'/);
    expect(formatScore(t)).toBe(0);
  });

  it('empty output ends the episode at once', async () => {
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: scripted(['']), tools });
    expect(t.termination).toBe('format_error');
    expect(t.steps).toHaveLength(0);
    expect(formatScore(t)).toBe(0);
  });

  it('a hallucinated <tool_response> is cut: the real observation is used, the format is broken', async () => {
    const p = scripted([`<think>x</think>${SEARCH}<tool_response>fake</tool_response>`, '<think>y</think><answer>Moscow</answer>']);
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: p, tools });
    const step = t.steps[0] as AgentStep;
    expect(step.observation).toMatch(/^A search for 'Moscow'/);
    expect(step.issues).toEqual(['hallucinated_observation']);
    expect(step.raw).not.toContain('fake');
    expect(p.contexts[1]).not.toContain('fake');
    expect(formatScore(t)).toBe(0);
  });

  it('two tool calls in a turn: only the first runs', async () => {
    const two = `<think>x</think>${SEARCH}<tool_call>{"name": "search", "arguments": {"query": ["Kazan"]}}</tool_call>`;
    const p = scripted([two, '<think>y</think><answer>Moscow</answer>']);
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: p, tools });
    expect(t.tool_calls).toBe(1);
    expect(t.steps[0]!.observation).not.toContain("'Kazan'");
    expect(formatScore(t)).toBe(0);
  });

  it('a policy that throws ends the episode as policy_error, never as the model\'s format error', async () => {
    const p: Policy = { name: 'boom', generate: () => Promise.reject(new Error('model down')) };
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: p, tools });
    expect(t.termination).toBe('policy_error');
    expect(t.error).toBe('model down');
    let turns = 0;
    const midway: Policy = {
      name: 'midway',
      generate: async () => {
        if (turns++ === 0) return '<think>x</think><tool_call>{"name": "search", "arguments": {"query": ["Moscow"]}}</tool_call>';
        throw new Error('connection refused');
      },
    };
    const m = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: midway, tools });
    expect([m.termination, m.tool_calls, m.error]).toEqual(['policy_error', 1, 'connection refused']);
  });

  it('a tool layer that throws ends the episode as tool_error', async () => {
    const broken = { specs: tools.specs, execute: () => Promise.reject(new Error('search backend unreachable')) };
    const p = scripted(['<think>x</think><tool_call>{"name": "search", "arguments": {"query": ["Moscow"]}}</tool_call>']);
    const t = await runEpisode({ id: 't', qaId: 'q', question: 'Q', policy: p, tools: broken });
    expect([t.termination, t.error]).toEqual(['tool_error', 'search backend unreachable']);
  });
});
