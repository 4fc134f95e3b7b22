// Answer matching by an entity's names: its aliases (gold answers of their own) and standard forms.
import { describe, expect, it } from 'vitest';
import { matchLevels, namesGold, standardForm } from '../../main/lab/agent/answer-forms';
import { exactMatch, goldAnswers, scoreTrajectory } from '../../main/lab/agent/reward';
import type { Trajectory } from '../../main/lab/formats/index';

describe('standard forms', () => {
  it('reads "City of X" as X, spells out St./Mt./Ft., and lets & meet "and"', () => {
    expect(standardForm('City of Freeport')).toBe('freeport');
    expect(standardForm('the Town of  Palm Beach')).toBe('palm beach');
    expect(standardForm('St. Louis')).toBe('saint louis');
    expect(standardForm('Mt. Hood')).toBe('mount hood');
    expect(standardForm('Procter & Gamble')).toBe('procter gamble');
    expect(standardForm('Procter and Gamble')).toBe('procter gamble');
  });

  it('keeps a prefix that names nothing after it, and does not cut inside a name', () => {
    expect(standardForm('City of')).toBe('city of');
    expect(standardForm('Kansas City')).toBe('kansas city');
    expect(standardForm('Mexico City')).toBe('mexico city');
    expect(standardForm('Cityof Freeport')).toBe('cityof freeport');
  });
});

describe('namesGold', () => {
  it('counts the standard form either way round', () => {
    expect(namesGold('City of Freeport', ['Freeport'])).toBe(true);
    expect(namesGold('Freeport', ['City of Freeport'])).toBe(true);
    expect(namesGold('Saint Louis', ['St. Louis'])).toBe(true);
  });

  it('does not count a different place or a bare prefix', () => {
    expect(namesGold('Kansas', ['Kansas City'])).toBe(false);
    expect(namesGold('Freeport Texas', ['Freeport'])).toBe(false);
    expect(namesGold('City of', ['City'])).toBe(false);
    expect(namesGold('', ['Freeport'])).toBe(false);
    expect(namesGold('...', ['...'])).toBe(false);
  });
});

describe('exact match and the reward', () => {
  const qa = { question: 'Which port town …?', answer: 'Freeport', aliases: ['Port of Freeport Town', 'Frihavn'] };
  const answered = (prediction: string): Trajectory =>
    ({
      id: 't', qa_id: 'q', policy: 'p', seed: 0, prediction, termination: 'answer', tool_calls: 0,
      steps: [{ think: 'x', action: { name: 'answer', arguments: { answer: prediction } } }],
      reward: { format: 0, answer: 0, total: 0 }, tokens: { generated: 0, observation: 0 },
    }) as unknown as Trajectory;

  it('takes the knowledge base aliases as gold answers', () => {
    expect(goldAnswers(qa)).toEqual(['Freeport', 'Port of Freeport Town', 'Frihavn']);
    expect(exactMatch('frihavn', goldAnswers(qa))).toBe(1);
    expect(exactMatch('Freeport harbour', goldAnswers(qa))).toBe(0);
    expect(exactMatch(null, goldAnswers(qa))).toBe(0);
  });

  it('gives the answer reward for a standard form, in RL and evaluation alike (one scoreTrajectory)', async () => {
    expect((await scoreTrajectory(answered('City of Freeport'), qa)).answer).toBe(1);
    expect((await scoreTrajectory(answered('Freeport, Bahamas'), qa)).answer).toBe(0);
  });
});

describe('matchLevels', () => {
  it('grades a prediction under plain, alias and standard-form matching, strictest first', () => {
    expect(matchLevels('Freeport', 'Freeport')).toEqual({ plain: true, aliases: true, forms: true });
    expect(matchLevels('City of Freeport', 'Freeport')).toEqual({ plain: false, aliases: false, forms: true });
    expect(matchLevels('Big Apple', 'New York City', ['Big Apple'])).toEqual({ plain: false, aliases: true, forms: true });
    expect(matchLevels('St. Louis', 'Saint Louis')).toEqual({ plain: false, aliases: false, forms: true });
    expect(matchLevels('Chicago', 'Freeport', ['City of Freeport'])).toEqual({ plain: false, aliases: false, forms: false });
    expect(matchLevels(null, 'Freeport')).toEqual({ plain: false, aliases: false, forms: false });
    expect(matchLevels('  ', 'Freeport')).toEqual({ plain: false, aliases: false, forms: false });
  });
});
