// What counts as a correct answer, defined once (contract/correct.ts): every judge of "solved" in the lab core
// agrees with it, and no other file compares an answer reward.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerGrade, isCorrect } from '../../main/lab/contract';
import { sampleFromTrajectory } from '../../main/lab/agent/eval';
import { RFT_DEFAULTS, rftVerdict } from '../../main/lab/agent/rft';
import { isSolved } from '../../main/lab/rl/batch';
import type { Trajectory } from '../../main/lab/formats';

const traj = (answer: number): Trajectory => ({
  id: 't', qa_id: 'q', policy: 'oracle', prediction: 'A', termination: 'answer', tool_calls: 2, tokens: { generated: 10, observation: 10 },
  reward: { format: 1, answer, total: 0.1 + 0.9 * answer },
  steps: [{ think: '', action: { name: 'search', arguments: { query: ['a'] } }, observation: 'o' }, { think: '', action: { name: 'search', arguments: { query: ['b'] } }, observation: 'o' }, { think: '', action: { name: 'answer', arguments: { answer: 'A' } } }],
});

describe('isCorrect', () => {
  it('full answer credit is correct; partial credit (F1 below 1) and none are not', () => {
    expect([0, 0.5, 0.8, 0.999, 1].map((answer) => isCorrect({ answer }))).toEqual([false, false, false, false, true]);
  });

  it('a 1 rounded on its way through float32 or JSON still counts', () => {
    expect(isCorrect({ answer: 0.99999999999 })).toBe(true);
    expect(isCorrect({ answer: Math.fround(1) })).toBe(true);
  });

  it('grades an answer for the inspector: correct, partial, wrong', () => {
    expect([1, 0.4, 0].map((answer) => answerGrade({ answer }))).toEqual(['correct', 'partial', 'wrong']);
  });

  it('evaluation, RFT and the RL pool judge a rollout alike', () => {
    for (const answer of [0, 0.5, 0.999, 1 - 1e-12, 1]) {
      const t = traj(answer);
      const judges = [sampleFromTrajectory(t).correct, rftVerdict(t, { ...RFT_DEFAULTS, minToolCalls: 0 }) !== 'incorrect', isSolved({ qaId: 'q', rewards: [t.reward.total], answers: [answer] }, 0)];
      expect(judges, `answer reward ${answer}`).toEqual([isCorrect(t.reward), isCorrect(t.reward), isCorrect(t.reward)]);
    }
  });
});

describe('one place', () => {
  const root = join(import.meta.dirname, '..', '..');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? (n === 'node_modules' ? [] : files(p)) : /\.(ts|vue)$/.test(n) ? [p] : [];
    });

  it('no file but contract/correct.ts compares an answer reward with a number', () => {
    // `x.reward.answer >= 1`, `(r?.reward.answer ?? 0) > 0`, `1 <= t.reward.answer`; not an arrow (`=> t.reward.answer`).
    const op = String.raw`(>=|<=|===|!==|(?<![=-])>|<)`;
    const comparison = new RegExp(String.raw`reward\??\.answer\s*(\?\?\s*\d+\)?\s*)?${op}|${op}\s*[\w.!?]*reward\??\.answer\b`);
    const offenders = ['main', 'renderer/src', 'bench']
      .flatMap((d) => files(join(root, d)))
      .filter((f) => !f.endsWith(join('contract', 'correct.ts')) && comparison.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });
});
