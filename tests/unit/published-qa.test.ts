// Published QA sets in and out (synth/published.ts, `sailor import qa, sailor export qa`): the three reference samples
// round-trip through a sailor.qa/1 dataset, and bad files are refused naming file and line.
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importPublished, readPublished, toPublished } from '../../main/lab/synth/published';
import { checkDataset, readDataset, writeDataset } from '../../main/lab/synth/dataset';
import { GRAPH_FORMAT, type Graph } from '../../main/lab/formats';

// The published samples live beside the checkout (../shared, as CI lays it out); a missing folder fails the test.
const REFERENCE = join(import.meta.dirname, '..', '..', '..', 'shared', 'reference');
const SAMPLES = ['websailor-sailorfog-qa.sample.jsonl', 'webdancer-qa.sample40.jsonl', 'webshaper.sample50.jsonl'];
const dir = mkdtempSync(join(tmpdir(), 'sailor-published-'));
const lines = (path: string): Record<string, unknown>[] => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('reference samples', () => {
  it('are beside the checkout', () => expect(existsSync(REFERENCE), `${REFERENCE} (../shared/reference)`).toBe(true));
  for (const name of SAMPLES) {
    it(`${name}: import, write, read, export gives the same question/answer pairs (and the same records)`, () => {
      const src = join(REFERENCE, name);
      const qas = importPublished(readPublished(src));
      const ds = join(dir, `${name}.qa.jsonl`);
      writeDataset(ds, { source: 'external' }, qas);
      const back = readDataset(ds).qas;
      expect(back.every((q) => q.source === 'external')).toBe(true);
      const out = back.map(toPublished);
      const original = lines(src);
      expect(out.map((r) => [r.question, r.answer])).toEqual(original.map((r) => [r.question, r.answer]));
      expect(out).toEqual(original);
      // no graph query behind them: check skips them instead of failing
      const report = checkDataset({ format: GRAPH_FORMAT, nodes: [], edges: [] }, back);
      expect(report).toMatchObject({ total: 0, external: original.length });
    });
  }
});

describe('import', () => {
  const file = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  it('refuses a line without a question, an empty file and a line that is not JSON, naming file and line', () => {
    const noQ = file('noq.jsonl', '{"question": "Q?", "answer": "A"}\n{"answer": "B"}\n');
    expect(() => readPublished(noQ)).toThrow(`${noQ}:2: question: expected a non-empty string`);
    const empty = file('empty.jsonl', '');
    expect(() => readPublished(empty)).toThrow(`${empty}: empty file`);
    const bad = file('bad.jsonl', '{"question": "Q?", "answer": "A"}\nnot json\n{"question": "R?", "answer": "C"}\n');
    expect(() => readPublished(bad)).toThrow(`${bad}:2: not valid JSON`);
    const arr = file('arr.jsonl', '["Q?", "A"]\n');
    expect(() => readPublished(arr)).toThrow(`${arr}:1: expected a JSON object`);
  });

  it('with a graph, an answer naming one node takes its id and aliases; a number answer is read as text', () => {
    const graph: Graph = {
      format: GRAPH_FORMAT,
      nodes: [{ id: 'n1', type: 'city', name: 'Lima', aliases: ['Ciudad de los Reyes'], attrs: {}, meta: {} }],
      edges: [],
    };
    const p = file('g.jsonl', '{"question": "Capital of Peru?", "answer": "lima"}\n{"question": "How many?", "answer": 12000}\n');
    const [a, b] = importPublished(readPublished(p), { graph, graphName: 'g.json' });
    expect(a).toMatchObject({ answer: 'lima', answer_id: 'n1', aliases: ['Lima', 'Ciudad de los Reyes'], source: 'external', id: 'ext-000001' });
    expect(b).toMatchObject({ answer: '12000', answer_id: 'external:ext-000002' });
  });

  it('a lab dataset exports as {question, answer}', () => {
    const [qa] = importPublished([{ question: 'Q?', answer: 'A' }]);
    expect(toPublished({ ...qa!, source: undefined, original: undefined })).toEqual({ question: 'Q?', answer: 'A' });
  });
});
