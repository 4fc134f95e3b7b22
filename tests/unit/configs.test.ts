// Every run config in configs/ is one row of docs/experiments.md, reproduced by `sailor train --config`.
// This parses each with the project's own parseRunConfig, so a config that drifts from the schema (a field
// renamed, a range tightened, a default rule added) fails here rather than when someone reruns the row.
import { readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, normalize, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunConfig } from '../../main/lab/contract/run-config';

const root = resolve(__dirname, '../..');
const configsDir = join(root, 'configs');
const configs = readdirSync(configsDir)
  .filter((f) => f.endsWith('.json'))
  .sort();

/**
 * The file fields `sailor train --config` accepts in `data` (cli/commands/train.ts), and the store id each
 * becomes once the CLI has imported the file. Configs name files: store ids differ from machine to machine.
 */
const FILE_FIELDS = { graphFile: 'graphId', datasetFile: 'datasetId', heldOutFile: 'heldOutDatasetId', rlFile: 'rlDatasetId' } as const;

function read(name: string): Record<string, unknown> {
  const value: unknown = JSON.parse(readFileSync(join(configsDir, name), 'utf8'));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`configs/${name}: expected a JSON object`);
  return value as Record<string, unknown>;
}

/** The config as `sailor train` hands it to runs.start: each data file replaced by an id (one per file). */
function asImported(name: string, config: Record<string, unknown>): Record<string, unknown> {
  const data = { ...(config.data as Record<string, unknown>) };
  for (const [fileField, idField] of Object.entries(FILE_FIELDS)) {
    const path = data[fileField];
    if (path === undefined) continue;
    expect(typeof path, `configs/${name}: data.${fileField}`).toBe('string');
    // Relative to the config file and inside configs/data/, which configs/.gitignore keeps out of git.
    const file = normalize(path as string);
    expect(isAbsolute(file), `configs/${name}: data.${fileField} must be relative`).toBe(false);
    expect(relative(join(configsDir, 'data'), join(configsDir, file)).startsWith('..'), `configs/${name}: data.${fileField} must be under configs/data/`).toBe(false);
    delete data[fileField];
    data[idField] = `import-${file.replace(/[^A-Za-z0-9._-]/g, '_')}`;
  }
  return { ...config, data };
}

describe('configs/', () => {
  it('has configs, named in lower case', () => {
    expect(configs.length).toBeGreaterThan(0);
    for (const name of configs) expect(name, `configs/${name}`).toMatch(/^[a-z0-9][a-z0-9._-]*\.json$/);
  });

  it.each(configs)('%s parses with the run config schema', (name) => {
    const config = read(name);
    expect(config.data, `configs/${name}: data`).toBeTypeOf('object');
    for (const idField of Object.values(FILE_FIELDS)) {
      expect((config.data as Record<string, unknown>)[idField], `configs/${name}: data.${idField}: name a file, not a store id`).toBeUndefined();
    }
    const parsed = parseRunConfig(asImported(name, config), `configs/${name}`);
    expect(parsed.data.graphId).toMatch(/^import-/);
  });

  it('gives every config a row in docs/experiments.md, and every row a config', () => {
    const doc = readFileSync(join(root, 'docs', 'experiments.md'), 'utf8');
    // Config names are lower-case; `configs/NAME.json` in the prose is the placeholder, not a row.
    const named = [...new Set([...doc.matchAll(/configs\/([a-z0-9][a-z0-9._-]*\.json)/g)].map((m) => m[1]!))].sort();
    expect(named).toEqual(configs);
  });
});
