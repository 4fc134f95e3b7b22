import { describe, expect, it } from 'vitest';
import { policyView, promptBudget, repeatAnswerTurns, turnWindows, validationQuestions, windowIndices } from '../../main/lab/train/policy/view';
import { answerInWindow, policyPrompt } from '../../main/lab/train/policy/policy';
import { buildMaskedTokens, type MaskedTokens } from '../../main/lab/model/mask';
import { observationReach } from '../../main/lab/model/positions';
import { trainTokenizer } from '../../main/lab/model/tokenizer';
import type { AgentStep } from '../../main/lab/agent/react';

describe('policy view', () => {
  const steps: AgentStep[] = [
    { think: 'look it up', action: { name: 'search', arguments: { query: ['Paris'] } }, observation: 'Paris is the capital of France.' },
    { think: 'found it', action: { name: 'answer', arguments: { answer: 'France' } } },
  ];

  it('replaces the system prompt by the question and keeps the spans on the same text', () => {
    const v = policyView('Which country has Paris?', steps);
    expect(v.text.startsWith('Question: Which country has Paris?\n\n<think>')).toBe(true);
    expect(v.text).not.toContain('Web Information Seeking Master');
    for (const s of v.spans) expect(s.end).toBeLessThanOrEqual(v.text.length);
    const obs = v.spans.find((s) => s.kind === 'observation')!;
    expect(v.text.slice(obs.start, obs.end)).toContain('Paris is the capital of France.');
    const action = v.spans.filter((s) => s.kind === 'action').at(-1)!;
    expect(v.text.slice(action.start, action.end)).toContain('<answer>France</answer>');
  });
});

describe('windows', () => {
  it('keeps short sequences whole and pins the head of long ones', () => {
    expect(windowIndices(4, 2, 10)).toEqual([0, 1, 2, 3]);
    expect(windowIndices(10, 2, 5)).toEqual([0, 1, 7, 8, 9]);
    expect(windowIndices(10, 8, 5)).toEqual([0, 1, 2, 3, 4]); // head longer than the window: head only
  });

  // tokens: [bos q q | think x4 | action x2 | observation x20 | think x3 | action x2 | eos]
  //          0   1 2   3..6       7..8         9..28              29..31     32..33     34
  const ids = Array.from({ length: 35 }, (_, i) => 100 + i);
  const tokens = {
    ids,
    mask: ids.map((_, i) => (i < 3 || (i >= 9 && i < 29) ? 0 : 1)),
    segments: [
      { kind: 'prompt' as const, start: 1, end: 3 },
      { kind: 'think' as const, start: 3, end: 7 },
      { kind: 'action' as const, start: 7, end: 9 },
      { kind: 'observation' as const, start: 9, end: 29 },
      { kind: 'think' as const, start: 29, end: 32 },
      { kind: 'action' as const, start: 32, end: 34 },
    ],
  };

  it('puts every turn in one row when the policy would have seen its whole prefix', () => {
    expect(promptBudget(100, 10)).toBe(90);
    expect(turnWindows(tokens, 100, 10)).toEqual([{ ids: tokens.ids, mask: tokens.mask }]);
  });

  it('gives a later turn the context policyPrompt would give it: cut to the budget, the question pinned', () => {
    // blockSize 30, 10 positions kept for the turn: 20 positions of context. The first turn starts at 3,
    // inside the budget, so its row is the uncut prefix; the second starts at 29, so its context is
    // bos q q and the 17 tokens before it (12..28), then the turn and <|eos|>, the loss on the turn only.
    const w = turnWindows(tokens, 30, 10);
    expect(w).toHaveLength(2);
    expect(w[0]).toEqual({ ids: ids.slice(0, 9), mask: tokens.mask.slice(0, 9) });
    expect(w[1]!.ids).toEqual([100, 101, 102, ...ids.slice(12, 35)]);
    expect(w[1]!.mask).toEqual([...Array<number>(20).fill(0), 1, 1, 1, 1, 1, 1]);
    expect(w[1]!.ids.length).toBeLessThanOrEqual(31);
  });
});

describe('training rows and inference prompts', () => {
  it('train the policy on exactly the context it is given at inference, turn by turn', () => {
    const long = Array.from({ length: 40 }, (_, i) => `Fact ${i}: Paris is located in France.`).join(' ');
    const steps: AgentStep[] = [
      { think: 'Search "Paris".', action: { name: 'search', arguments: { query: ['Paris'] } }, observation: long },
      { think: 'Read this page.', action: { name: 'visit', arguments: { url: ['sim://Paris'], goal: 'country' } }, observation: long },
      { think: 'Answer: France.', action: { name: 'answer', arguments: { answer: 'France' } } },
    ];
    const question = 'Which country is Paris located in?';
    const v = policyView(question, steps);
    const tok = trainTokenizer([v.text], { vocabSize: 300 });
    const blockSize = 128;
    const turnTokens = 40;
    const rows = turnWindows(buildMaskedTokens(tok, v.text, v.spans), blockSize, turnTokens);
    expect(rows.length).toBeGreaterThan(1); // the observations are longer than the context: rows are cut
    // Each row's loss starts where its last turn starts; what comes before it is that turn's context.
    const lastTurnStart = (mask: readonly number[]): number => {
      let i = mask.length;
      while (i > 0 && mask[i - 1] === 1) i--;
      return i;
    };
    const contexts = rows.map((r) => r.ids.slice(0, lastTurnStart(r.mask)));
    const prompts = steps.map((_, j) => policyPrompt(tok, question, steps.slice(0, j), blockSize, turnTokens));
    // Turns that share the first row saw an uncut prefix; every later turn has its own row.
    const own = prompts.slice(prompts.length - (rows.length - 1));
    expect(contexts.slice(1)).toEqual(own);
    for (const r of rows) expect(r.ids.length).toBeLessThanOrEqual(blockSize + 1);
  });

  it('with bidirectional tool responses, no position reads a token it is trained to predict', () => {
    // Positions of the row that read ahead (inside a response), and loss targets some position at or before them can read.
    const readAhead = (row: MaskedTokens): { ahead: number; leaks: number } => {
      const n = row.ids.length - 1; // inputs ids[0 .. n - 1]; position t predicts ids[t + 1]
      const reach = observationReach(row.ids.slice(0, n), 1, n);
      let seen = -1;
      let ahead = 0;
      let leaks = 0;
      for (let t = 0; t < n; t++) {
        seen = Math.max(seen, reach[t]!);
        if (reach[t]! > t) ahead++;
        if (row.mask[t + 1] === 1 && seen > t) leaks++;
      }
      return { ahead, leaks };
    };
    const page = (i: number): string => `Page ${i}: Irrawaddy River flows into Andaman Sea. ` + 'Fact: Yangon is a city. '.repeat(i * 6);
    const steps: AgentStep[] = [0, 1, 2].map((i) => ({ think: `Look ${i}.`, action: { name: 'visit', arguments: { url: [`sim://P${i}`], goal: 'what flows in' } }, observation: page(i) }));
    steps.push({ think: 'Answer.', action: { name: 'answer', arguments: { answer: 'Irrawaddy River' } } });
    const v = policyView('What flows into Andaman Sea?', steps);
    const tok = trainTokenizer([v.text], { vocabSize: 300 });
    const ahead: number[] = [];
    for (const blockSize of [96, 160, 1024]) {
      // 1024: one shared row with every turn; 96 and 160: rows whose window starts inside a response.
      const rows = turnWindows(buildMaskedTokens(tok, v.text, v.spans), blockSize, 32);
      const r = rows.map(readAhead);
      ahead.push(r.reduce((a, x) => a + x.ahead, 0));
      expect(r.map((x) => x.leaks)).toEqual(rows.map(() => 0));
    }
    // At 96 every window starts inside a long page (read causally); at 160 and 1024 whole responses read ahead.
    expect(ahead[0]).toBe(0);
    expect(ahead[1]).toBeGreaterThan(0);
    expect(ahead[2]).toBeGreaterThan(ahead[1]!);
  });
});

describe('answer turns drawn more often', () => {
  it('repeats exactly the rows whose loss holds <answer>', () => {
    const steps: AgentStep[] = [
      { think: 'Search "Paris".', action: { name: 'search', arguments: { query: ['Paris'] } }, observation: 'Paris is located in France. '.repeat(30) },
      { think: 'Answer: France.', action: { name: 'answer', arguments: { answer: 'France' } } },
    ];
    const v = policyView('Which country is Paris located in?', steps);
    const tok = trainTokenizer([v.text], { vocabSize: 300 });
    const rows = turnWindows(buildMaskedTokens(tok, v.text, v.spans), 96, 32);
    expect(rows).toHaveLength(2); // the search turn with the question; the answer turn after a cut observation
    const answer = tok.special('<answer>');
    const [search, final] = rows as [MaskedTokens, MaskedTokens];
    // The answer row has <answer> as a target; the search row has none (the tag in its text would be context only).
    expect(final.ids.some((id, i) => id === answer && final.mask[i] === 1)).toBe(true);
    expect(search.ids.includes(answer)).toBe(false);
    expect(repeatAnswerTurns(rows, answer, 3)).toEqual([search, final, final, final]);
    expect(repeatAnswerTurns(rows, answer, 1)).toEqual(rows);
    // <answer> shown as context (mask 0) does not count.
    const shown = { ids: final.ids, mask: final.mask.map(() => 0) };
    expect(repeatAnswerTurns([shown], answer, 3)).toEqual([shown]);
  });
});

describe('answer in the prompt window', () => {
  it('counts the answer turns whose window still shows the answer, under any of its names', () => {
    const filler = Array.from({ length: 20 }, (_, i) => `Fact ${i}: printer is an occupation.`).join(' ');
    const visit = (page: string, observation: string): AgentStep => ({ think: 'Read it.', action: { name: 'visit', arguments: { url: [`sim://${page}`], goal: 'nationality' } }, observation });
    const answer = (a: string): AgentStep => ({ think: `Answer: ${a}.`, action: { name: 'answer', arguments: { answer: a } } });
    // The answer comes from the first page; a long second page (checking a constraint) pushes it out of a short window.
    const early = { question: 'Which country is Gutenberg a national of?', steps: [visit('Gutenberg', 'Gutenberg has nationality Germany.'), visit('printer', filler), answer('Germany')], answers: ['Germany'] };
    // The answer is on the last page, under an alias of the gold name.
    const late = { question: 'Which country is Koch a national of?', steps: [visit('Koch', 'Koch has nationality Deutschland.'), answer('Deutschland')], answers: ['Germany', 'Deutschland'] };
    const tok = trainTokenizer([...early.steps, ...late.steps].map((x) => `${x.think} ${x.observation ?? ''}`), { vocabSize: 300 });
    expect(answerInWindow(tok, [early, late], 160)).toBe(0.5); // a 64-token prompt window
    expect(answerInWindow(tok, [early, late], 1024)).toBe(1);
    expect(answerInWindow(tok, [], 160)).toBe(1);
  });
});

describe('validation split', () => {
  it('holds out whole questions: every attempt of a held-out question, none of the others', () => {
    // Three attempts of q1..q4 each, in the order the RFT file keeps them; every 2nd question is held out.
    const ids = ['q1', 'q1', 'q1', 'q2', 'q2', 'q3', 'q3', 'q3', 'q4', 'q2'];
    expect([...validationQuestions(ids, 2)]).toEqual(['q2', 'q4']);
    expect([...validationQuestions(ids)]).toEqual([]);
    const many = Array.from({ length: 30 }, (_, i) => `q${Math.floor(i / 3)}`);
    expect([...validationQuestions(many)]).toEqual(['q9']);
  });
});
