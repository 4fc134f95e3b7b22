// The run dashboard's labels (renderer/src/components/runs/dashboard.ts): which evaluation interval the running
// stage has, which runs are RL only, and how a table cell writes a number.
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '@contract';
import { cell, evalInterval, rlOnly } from '../../renderer/src/components/runs/dashboard';

const run = (config: Record<string, unknown>): RunSummary =>
  ({ artefact: { id: 'r', name: 'r', path: 'runs/r', createdAt: '', info: { config } }, status: 'running', seconds: 0, lastStep: 0, metrics: {} }) as unknown as RunSummary;

describe('dashboard labels', () => {
  const sftRl = run({ sft: { steps: 2000 }, eval: { every: 500 }, rl: { steps: 100, evalEvery: 10 } });
  const rlFromCkpt = run({ sft: { steps: 0 }, eval: { every: 500 }, rl: { steps: 100, evalEvery: 10 }, init: { checkpoint: 'a/last' } });

  it("gives the running stage's evaluation interval", () => {
    expect(evalInterval(sftRl, 0)).toBe('every 500 steps'); // still in SFT
    expect(evalInterval(sftRl, 3)).toBe('every 10 RL steps');
    expect(evalInterval(rlFromCkpt, 0)).toBe('every 10 RL steps'); // RL only, before its first step
    expect(evalInterval(run({ sft: { steps: 20 }, eval: { every: 10 } }), 0)).toBe('every 10 steps');
  });

  it('knows an RL-only run', () => {
    expect([rlOnly(rlFromCkpt), rlOnly(sftRl), rlOnly(run({ sft: { steps: 0 } }))]).toEqual([true, false, false]);
  });

  it('writes table numbers short: no raw floats', () => {
    expect(cell(0.8760932944606414)).toBe('0.8761');
    expect(cell(1234567)).toBe('1,234,567');
    expect(cell(12.5)).toBe('12.5');
    expect(cell(undefined)).toBe('–');
    expect(cell(Number.NaN)).toBe('–');
  });
});
