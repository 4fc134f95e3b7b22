// `sailor export verl`: a lab dataset as a verl run folder (docs/verl.md): train/val Parquet in verl's row
// shape, the tool files and tool configs for the lab's search and visit behind `sailor web serve`, the lab's
// reward as compute_score, run.sh and a README. The Python files are templates in resources/verl/.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { QA } from '../formats/index';
import { excerpt, LabError } from '../base/errors';
import { resourcesDir } from '../base/paths';
import { removeAbandonedTemps } from '../store/files';
import { pidExists } from '../store/lockfile';
import { DEFAULT_TOOLS } from '../agent/react';
import { REWARD_DEFAULTS, type AnswerMode } from '../agent/reward';
import { verlRow, type VerlRow } from '../agent/verl-rows';
import { pq, type PqType, writeParquetRows } from './parquet';
import { renderReadme, renderRunSh } from './export-verl-docs';

export interface VerlExportOptions {
  train: QA[];
  heldOut: QA[] | null;
  out: string;
  dataSource: string;
  webUrl: string;
  reward: Exclude<AnswerMode, 'judge'>;
}

export const VERL_COLUMNS: Array<[keyof VerlRow, PqType]> = [
  ['data_source', pq.string],
  ['prompt', pq.list(pq.struct({ role: pq.string, content: pq.string }))],
  ['ability', pq.string],
  ['reward_model', pq.struct({ style: pq.string, ground_truth: pq.struct({ target: pq.list(pq.string) }) })],
  [
    'extra_info',
    pq.struct({
      index: pq.int64,
      split: pq.string,
      qa_id: pq.string,
      question: pq.string,
      level: pq.int64,
      tools_kwargs: pq.struct(Object.fromEntries(DEFAULT_TOOLS.map((t) => [t.name, pq.struct({ create_kwargs: pq.struct({ qa_id: pq.string }) })]))),
      interaction_kwargs: pq.struct({ query: pq.string, ground_truth: pq.string }),
    }),
  ],
  ['agent_name', pq.string],
];

/** Without a held-out set, verl still needs val files: the first training questions, a check of fit only. */
export const FALLBACK_VAL_SIZE = 64;

// Words PyYAML (YAML 1.1) would read as booleans or null when bare.
const YAML_RESERVED = /^(?:y|n|yes|no|on|off|true|false|null)$/i;

/** A mapping key bare when it is a plain word, JSON-quoted otherwise. */
const yamlKey = (k: string): string => (/^[A-Za-z_][\w.-]*$/.test(k) && !YAML_RESERVED.test(k) ? k : JSON.stringify(k));

/** YAML for plain JSON data: block mappings and sequences, every scalar JSON-quoted (valid YAML 1.1 and 1.2). */
export function toYaml(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return ' []';
    return value.map((v) => `\n${indent}-${toYaml(v, `${indent}  `).replace(/^\n\s*/, ' ')}`).join('');
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return ' {}';
    return entries.map(([k, v]) => `\n${indent}${yamlKey(k)}:${toYaml(v, `${indent}  `)}`).join('');
  }
  return ` ${JSON.stringify(value)}`;
}

function toolSchema(name: string): { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } } {
  const spec = DEFAULT_TOOLS.find((t) => t.name === name)!;
  return { type: 'function', function: { name: spec.name, description: spec.description, parameters: spec.parameters } };
}

/** tool_config.yaml: the lab's tools as BaseTool classes (`tools: [{class_name, config, tool_schema}]`). */
export function labToolConfig(webUrl: string): string {
  const classes: Record<string, string> = { search: 'sailor_tools.SailorSearchTool', visit: 'sailor_tools.SailorVisitTool' };
  const tools = DEFAULT_TOOLS.map((t) => ({ class_name: classes[t.name], config: { type: 'native', service_url: webUrl, timeout: 30 }, tool_schema: toolSchema(t.name) }));
  return `# Sailor Lab's search and visit for verl (sailor_tools.py on PYTHONPATH); the service: sailor web serve.${toYaml({ tools })}\n`;
}

/** For verl <= 0.7.1's built-in SearchTool, which speaks the Search-R1 retriever protocol to POST /retrieve. */
export function searchR1ToolConfig(webUrl: string): string {
  const tools = [
    {
      class_name: 'verl.tools.search_tool.SearchTool',
      config: { retrieval_service_url: `${webUrl}/retrieve`, topk: 3, num_workers: 120, rate_limit: 120, timeout: 30, type: 'native' },
      tool_schema: {
        type: 'function',
        function: {
          name: 'search',
          description: 'Searches the web for relevant information based on the given query.',
          parameters: { type: 'object', properties: { query_list: { type: 'array', items: { type: 'string' }, description: 'A list of queries.' } }, required: ['query_list'] },
        },
      },
    },
  ];
  return `# verl <= 0.7.1 only: its own SearchTool against sailor web serve's POST /retrieve (Doc i (Title: ...) observations).${toYaml({ tools })}\n`;
}

function template(name: string): string {
  return readFileSync(join(resourcesDir(), 'verl', name), 'utf8');
}

/** Replaces the one line starting with `prefix` (a template's setting), failing loudly if the template changed. */
export function setLine(text: string, prefix: string, line: string): string {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith(prefix));
  if (at < 0) throw new LabError('internal', `template has no line starting with '${prefix}'`);
  lines[at] = line;
  return lines.join('\n');
}

export function verlRows(qas: readonly QA[], split: string, dataSource: string): VerlRow[] {
  return qas.map((qa, i) => {
    const row = verlRow(qa, i, split, dataSource);
    const bad = loneSurrogate(row);
    // Parquet holds UTF-8, where a lone surrogate has no encoding: it would become U+FFFD, silently.
    if (bad) throw new LabError('bad_input', `${split} row ${i + 1} (qa ${excerpt(qa.id, 40)}): ${bad.field}: a lone surrogate (U+${bad.code}) at character ${bad.at}, which UTF-8 cannot hold; fix that question in the dataset`);
    return row;
  });
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first string in a row holding a lone surrogate (half of a UTF-16 pair): its field path and place. */
export function loneSurrogate(value: unknown, path = ''): { field: string; at: number; code: string } | null {
  if (typeof value === 'string') {
    const m = LONE_SURROGATE.exec(value);
    return m ? { field: path, at: m.index, code: m[0].charCodeAt(0).toString(16).toUpperCase() } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    const found = loneSurrogate(v, Array.isArray(value) ? `${path}[${k}]` : path ? `${path}.${k}` : k);
    if (found) return found;
  }
  return null;
}

export interface VerlExportResult {
  out: string;
  train: number;
  val: number;
  valFrom: 'held-out' | 'train';
  files: string[];
}

export function exportVerl(o: VerlExportOptions): VerlExportResult {
  if (o.train.length === 0) throw new LabError('bad_input', 'the dataset has no questions to export');
  const final = resolve(o.out);
  const val = o.heldOut ?? o.train.slice(0, FALLBACK_VAL_SIZE);
  if (val.length === 0) throw new LabError('bad_input', 'the held-out dataset has no questions');
  checkReplaceable(final);
  // What an export killed before its rename left beside the folder (its writer is gone) goes first.
  removeAbandonedTemps(dirname(final), pidExists, 0);
  // Written whole in a hidden folder beside it, then renamed into place: a kill leaves the old folder or none,
  // never a folder with some of the files.
  const out = join(dirname(final), `.${basename(final)}.tmp-${process.pid}-${Date.now()}`);
  mkdirSync(out, { recursive: true });
  try {
    writeExport(o, out, val);
    replaceDir(out, final);
  } catch (err) {
    rmSync(out, { recursive: true, force: true });
    throw err;
  }
  return { out: final, train: o.train.length, val: val.length, valFrom: o.heldOut ? 'held-out' : 'train', files: [...EXPORT_FILES] };
}

const EXPORT_FILES = ['train.parquet', 'val.parquet', 'sailor_reward.py', 'sailor_web.py', 'sailor_tools.py', 'sailor_function_tools.py', 'tool_config.yaml', 'tool_config_search_r1.yaml', 'run.sh', 'README.md'] as const;

/** --out may name a new folder, an empty one, or an earlier export (replaced whole); never a folder of other files. */
function checkReplaceable(dir: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw new LabError('bad_request', `--out: ${dir} is a file, expected a folder to write`);
  const others = readdirSync(dir).filter((f) => !(EXPORT_FILES as readonly string[]).includes(f));
  if (others.length) throw new LabError('bad_request', `--out: ${dir} holds files an export does not write (${others.slice(0, 3).map((f) => excerpt(f, 40)).join(', ')}): pick a new folder`);
}

/** Puts `from` at `to`: an earlier folder there is moved aside first and removed once the new one is in place. */
function replaceDir(from: string, to: string): void {
  if (!existsSync(to)) {
    renameSync(from, to);
    return;
  }
  const aside = `${from}.old`;
  renameSync(to, aside);
  try {
    renameSync(from, to);
  } catch (err) {
    renameSync(aside, to);
    throw err;
  }
  rmSync(aside, { recursive: true, force: true });
}

function writeExport(o: VerlExportOptions, out: string, val: QA[]): void {
  const asRecords = (rows: VerlRow[]): Array<Record<string, unknown>> => rows as unknown as Array<Record<string, unknown>>;
  writeParquetRows(join(out, 'train.parquet'), VERL_COLUMNS, asRecords(verlRows(o.train, 'train', o.dataSource)));
  writeParquetRows(join(out, 'val.parquet'), VERL_COLUMNS, asRecords(verlRows(val, 'test', o.dataSource)));

  const d = REWARD_DEFAULTS;
  const rewardOptions = { mode: o.reward, format_weight: d.formatWeight, answer_weight: d.answerWeight, combine: d.combine, format_credit: d.formatCredit };
  writeFileSync(join(out, 'sailor_reward.py'), setLine(template('sailor_reward.py'), 'REWARD_OPTIONS = ', `REWARD_OPTIONS = ${JSON.stringify(rewardOptions)}`));
  writeFileSync(join(out, 'sailor_web.py'), setLine(template('sailor_web.py'), 'DEFAULT_URL = ', `DEFAULT_URL = ${JSON.stringify(o.webUrl)}`));
  for (const f of ['sailor_tools.py', 'sailor_function_tools.py']) copyFileSync(join(resourcesDir(), 'verl', f), join(out, f));
  writeFileSync(join(out, 'tool_config.yaml'), labToolConfig(o.webUrl));
  writeFileSync(join(out, 'tool_config_search_r1.yaml'), searchR1ToolConfig(o.webUrl));
  writeFileSync(join(out, 'run.sh'), renderRunSh({ webUrl: o.webUrl, dataSource: o.dataSource }));
  chmodSync(join(out, 'run.sh'), 0o755);
  writeFileSync(join(out, 'README.md'), renderReadme({ webUrl: o.webUrl, train: o.train.length, val: val.length, valFrom: o.heldOut ? 'held-out' : 'train', reward: o.reward }));
}

/** The data source name verl groups validation metrics by (`val-core/{data_source}/...`). */
export function dataSourceName(datasetFile: string): string {
  return `sailor/${basename(datasetFile).replace(/\.jsonl?$/i, '')}`;
}
