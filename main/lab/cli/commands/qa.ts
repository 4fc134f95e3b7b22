// `sailor import qa` (a published QA set, JSON Lines of {question, answer, …}, into a sailor.qa/1 dataset) and
// `sailor export qa` (a dataset back in that shape). docs/formats.md, 'Published QA sets'.
import { basename } from 'node:path';
import { QA_FORMAT } from '../../formats';
import { readGraphFile } from '../../kg/io';
import { readDataset, writeDataset } from '../../synth/dataset';
import { importPublished, readPublished, toPublished } from '../../synth/published';
import { writeFileAtomic } from '../../store/files';
import { optString, printResult, reqString, sharedOptions, type CliCommand } from '../command';

export const qaCommands: CliCommand[] = [
  {
    path: ['import', 'qa'],
    summary: 'reads a published QA set (SailorFog-QA, WebDancer, WebShaper JSON Lines) into a sailor.qa/1 dataset',
    usage: 'import qa --file F.jsonl --out D.jsonl [--graph G.json] [--json]',
    options: {
      file: { type: 'string', description: 'JSON Lines, one {"question": …, "answer": …} object per line (other fields kept)' },
      out: { type: 'string', description: 'the dataset to write' },
      ...sharedOptions.graph('a sailor.graph/1 file: an answer that names one node gets its id and aliases'),
      ...sharedOptions.json(),
    },
    async run(ctx) {
      const file = reqString(ctx, 'file');
      const out = reqString(ctx, 'out');
      const graphPath = optString(ctx, 'graph');
      const rows = readPublished(file);
      const graph = graphPath ? readGraphFile(graphPath) : undefined;
      const qas = importPublished(rows, { graph, graphName: graphPath ? basename(graphPath) : '' });
      const matched = qas.filter((q) => !q.answer_id.startsWith('external:')).length;
      writeDataset(out, { format: QA_FORMAT, source: 'external', imported_from: basename(file), ...(graphPath ? { graph: basename(graphPath) } : {}), count: qas.length }, qas);
      printResult(ctx, { out, count: qas.length, answers_on_graph: graphPath ? matched : null }, () =>
        `imported ${qas.length} QAs from ${file} into ${out}${graphPath ? ` (${matched} answers name a node of ${basename(graphPath)})` : ''}; source "external": sailor check skips them`,
      );
    },
  },
  {
    path: ['export', 'qa'],
    summary: 'writes a dataset as published-set JSON Lines ({question, answer}; imported QAs get their own fields back)',
    usage: 'export qa --dataset D.jsonl --out F.jsonl [--json]',
    options: {
      dataset: { type: 'string', description: 'the sailor.qa/1 dataset' },
      out: { type: 'string', description: 'the JSON Lines file to write' },
      ...sharedOptions.json(),
    },
    async run(ctx) {
      const dataset = reqString(ctx, 'dataset');
      const out = reqString(ctx, 'out');
      const { qas } = readDataset(dataset);
      writeFileAtomic(out, qas.map((qa) => JSON.stringify(toPublished(qa))).join('\n') + '\n');
      printResult(ctx, { out, count: qas.length }, () => `wrote ${qas.length} QAs to ${out}`);
    },
  },
];
