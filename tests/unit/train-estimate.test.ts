// The wizard's duration estimate: the arithmetic on hand-checked measurements, and the warm-up itself on a
// real graph and dataset (real model steps on the wasm backend).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRunConfig } from '../../main/lab/contract/run-config';
import { estimateRun, evalCount, measureRun } from '../../main/lab/train/act/estimate';
import type { RunMeasurements } from '../../main/lab/contract';

const data = { graphId: 'g', datasetId: 'train', heldOutDatasetId: 'held' };

const measured: RunMeasurements = {
  backend: 'wasm',
  stepSeconds: 0.5,
  turnSeconds: 0.1,
  rolloutSeconds: 0.01,
  turnsPerTrajectory: 6,
  tokenizerSeconds: 2,
  trainQuestions: 100,
  heldOutQuestions: 20,
};

describe('estimateRun', () => {
  it('counts evaluations: one every N steps and one at the end', () => {
    expect(evalCount(400, 100)).toBe(4);
    expect(evalCount(450, 100)).toBe(5);
    expect(evalCount(50, 100)).toBe(1);
    expect(evalCount(0, 100)).toBe(0);
  });

  it('adds up RFT rollouts, tokenizer, SFT steps and evaluation rollouts', () => {
    const config = parseRunConfig({ data, model: { base: 'none' }, sft: { steps: 200 }, eval: { every: 100, questions: 30, samples: 2 }, rft: { attempts: 2, forcedAnswers: true } });
    const e = estimateRun(config, measured);
    // From the base model there is no tokenizer to train: it brings its own.
    expect(estimateRun(parseRunConfig({ data, sft: { steps: 200 } }), measured).parts.map((p) => p.label)).not.toContain('tokenizer');
    const part = (label: string) => e.parts.find((p) => p.label === label)!.seconds;
    expect(part('RFT data')).toBeCloseTo(100 * 3 * 0.01); // 2 attempts + 1 forced-answer attempt per question
    expect(part('tokenizer')).toBe(2);
    expect(part('SFT')).toBeCloseTo(200 * 0.5);
    // 2 evaluations × min(30, 20 held-out) × 2 samples × 6 turns × 0.1 s
    expect(part('evaluation')).toBeCloseTo(2 * 20 * 2 * 6 * 0.1);
    expect(e.totalSeconds).toBeCloseTo(3 + 2 + 100 + 48);
    expect(e.basis).toContain('wasm');
  });

  it('caps turns per trajectory at the tool-call limit plus the answer', () => {
    const config = parseRunConfig({ data, sft: { steps: 100 }, eval: { every: 100, questions: 10, samples: 1 }, env: { maxToolCalls: 2 } });
    const e = estimateRun(config, measured);
    expect(e.parts.find((p) => p.label === 'evaluation')!.seconds).toBeCloseTo(1 * 10 * 3 * 0.1);
  });
});

describe('estimateRun with an RL stage', () => {
  it('adds DUPO’s one-off filter, the rollouts, the updates and the RL evaluations', () => {
    const config = parseRunConfig({
      data,
      model: { base: 'none' },
      sft: { steps: 100, batchSize: 8 },
      eval: { every: 100, questions: 10, samples: 1 },
      rl: { algorithm: 'dupo', steps: 20, groupSize: 8, batchQuestions: 4, evalEvery: 10 },
    });
    const e = estimateRun(config, measured);
    const part = (label: string) => e.parts.find((p) => p.label === label)!;
    const rollout = 6 * 0.1; // turns × seconds per turn
    expect(part('too-easy filter').seconds).toBeCloseTo(80 * 8 * rollout); // min(100 questions, 20 × 4) × G
    expect(part('RL rollouts').seconds).toBeCloseTo(20 * 32 * rollout);
    expect(part('RL updates').seconds).toBeCloseTo(20 * 1 * ((32 * 6) / 8) * 0.5); // 192 windows = 24 SFT-sized steps
    expect(part('RL evaluation').seconds).toBeCloseTo(2 * 10 * rollout);
    expect(e.parts.filter((p) => p.stage === 'sft').map((p) => p.label)).toEqual(['RFT data', 'tokenizer', 'SFT', 'evaluation']);
  });

  it('sizes DUPO’s filter by the RL set, and gives the range of the samples’ fastest and slowest', () => {
    const config = parseRunConfig({ data: { ...data, rlDatasetId: 'rl' }, model: { base: 'none' }, sft: { steps: 100, batchSize: 8 }, rl: { algorithm: 'dupo', steps: 40, groupSize: 8, batchQuestions: 8 } });
    const withRl = { ...measured, rlQuestions: 264, spread: { stepSeconds: [0.25, 1] as [number, number], turnSeconds: [0.05, 0.2] as [number, number], samples: 5 } };
    const e = estimateRun(config, withRl);
    expect(e.parts.find((p) => p.label === 'too-easy filter')!.seconds).toBeCloseTo(264 * 8 * 6 * 0.1); // min(264, 40 × 8) × G × rollout
    const fast = estimateRun(config, { ...withRl, stepSeconds: 0.25, turnSeconds: 0.05, spread: undefined }).totalSeconds;
    const slow = estimateRun(config, { ...withRl, stepSeconds: 1, turnSeconds: 0.2, spread: undefined }).totalSeconds;
    expect(e.range).toEqual([fast, slow]);
    expect(fast).toBeLessThan(e.totalSeconds);
    expect(slow).toBeGreaterThan(e.totalSeconds);
    expect(estimateRun(config, measured).range).toBeUndefined();
  });

  it('has no RFT, tokenizer or SFT part when RL starts from a checkpoint, and no filter for GRPO', () => {
    const config = parseRunConfig({ data, init: { checkpoint: 'run-a/last' }, sft: { steps: 0 }, rl: { algorithm: 'grpo', steps: 5 } });
    const e = estimateRun(config, measured);
    expect(e.parts.map((p) => p.label)).toEqual(['RL rollouts', 'RL updates', 'RL evaluation']);
  });
});

describe('measureRun', () => {
  it('times the run’s own work on a real graph and dataset', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sailor-estimate-'));
    const home = join(dir, 'home');
    mkdirSync(join(home, 'graphs'), { recursive: true });
    mkdirSync(join(home, 'datasets'), { recursive: true });
    const sailor = (args: string[]) => spawnSync(process.execPath, ['bin/sailor.mjs', ...args], { encoding: 'utf8', timeout: 120_000 });
    for (const args of [
      ['kg', 'build', '--rng', '7', '--max-edges', '200', '--out', join(home, 'graphs', 'g.json')],
      ['synth', '--graph', join(home, 'graphs', 'g.json'), '--count', '20', '--rng', '1', '--out', join(home, 'datasets', 'train.jsonl')],
      ['synth', '--graph', join(home, 'graphs', 'g.json'), '--count', '5', '--rng', '2', '--out', join(home, 'datasets', 'held.jsonl')],
    ]) {
      const r = sailor(args);
      expect(r.status, r.stderr).toBe(0);
    }
    const config = parseRunConfig({ data, backend: 'wasm', tokenizer: { vocabSize: 512 }, model: { base: 'none', preset: 'tiny', blockSize: 64 }, sft: { batchSize: 2 } });
    const fractions: number[] = [];
    const m = await measureRun(config, home, { progress: (p) => fractions.push(p.fraction), signal: new AbortController().signal });
    expect(m.backend).toBe('wasm');
    expect(m.trainQuestions).toBe(20);
    expect(m.heldOutQuestions).toBe(5);
    for (const k of ['stepSeconds', 'turnSeconds', 'rolloutSeconds', 'tokenizerSeconds', 'turnsPerTrajectory'] as const) expect(m[k], k).toBeGreaterThan(0);
    expect(fractions.at(-1)).toBe(1);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    // Several short samples: the medians lie within their fastest and slowest.
    expect(m.spread!.samples).toBeGreaterThanOrEqual(3);
    expect(m.spread!.stepSeconds[0]).toBeLessThanOrEqual(m.stepSeconds);
    expect(m.spread!.stepSeconds[1]).toBeGreaterThanOrEqual(m.stepSeconds);
    expect(m.spread!.turnSeconds[0]).toBeLessThanOrEqual(m.turnSeconds);
    expect(m.spread!.turnSeconds[1]).toBeGreaterThanOrEqual(m.turnSeconds);
    const e = estimateRun(config, m);
    expect(e.totalSeconds).toBeCloseTo(e.parts.reduce((a, p) => a + p.seconds, 0));
    expect(e.range![0]).toBeLessThanOrEqual(e.totalSeconds);
    expect(e.range![1]).toBeGreaterThanOrEqual(e.totalSeconds);
  });
});
