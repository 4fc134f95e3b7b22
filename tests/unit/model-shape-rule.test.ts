// The model shape's one rule (contract/run-config.ts modelShapeProblem): a run config and a model config from
// anywhere else (model/gpt.ts resolveGPTConfig: a checkpoint, a test) accept and refuse the same shapes with the same words.
import { describe, expect, it } from 'vitest';
import { modelShapeProblem, parseRunConfig } from '../../main/lab/contract/run-config';
import { resolveGPTConfig } from '../../main/lab/model/gpt';

const data = { graphId: 'g', datasetId: 'a', heldOutDatasetId: 'b' };

/** The run config's verdict on a fresh model's width and heads: null, or the problem at the field. */
function runConfigVerdict(nEmbd: number, nHead: number): string | null {
  try {
    parseRunConfig({ data, model: { base: 'none', nEmbd, nHead } });
    return null;
  } catch (e) {
    return /model\.nEmbd: ([^;]*)/.exec((e as Error).message)?.[1] ?? (e as Error).message;
  }
}

/** The model's verdict on the same shape. */
function modelVerdict(nEmbd: number, nHead: number): string | null {
  try {
    resolveGPTConfig({ nEmbd, nHead });
    return null;
  } catch (e) {
    return (e as Error).message.replace(/^model config: /, '');
  }
}

describe('model shape, one rule', () => {
  it('the run config and the model agree on every width and head count', () => {
    const refused: string[] = [];
    for (const nEmbd of [8, 30, 64, 96, 100, 384]) {
      for (const nHead of [1, 3, 4, 6, 8]) {
        const verdict = modelShapeProblem({ nEmbd, nHead });
        expect(runConfigVerdict(nEmbd, nHead), `${nEmbd}/${nHead}`).toBe(verdict);
        expect(modelVerdict(nEmbd, nHead), `${nEmbd}/${nHead}`).toBe(verdict);
        if (verdict) refused.push(`${nEmbd}/${nHead}`);
      }
    }
    // Hand-checked: the widths that do not split evenly across the heads.
    expect(refused).toEqual(['8/3', '8/6', '30/4', '30/8', '64/3', '64/6', '100/3', '100/6', '100/8']);
  });

  it('names both fields in its words', () => {
    expect(modelShapeProblem({ nEmbd: 100, nHead: 8 })).toBe('nEmbd 100 must be divisible by nHead 8');
  });
});
