// A lab core on a fresh data folder holding the demo graph (`g-demo`) and its QAs (`d-demo`), registered as the
// app registers them: what the tests that play policies on the simulated web start from.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LabCore } from '../../main/lab/app/core';
import { demoGraph, demoQAs } from '../../main/lab/agent/demo';
import { writeGraphFile } from '../../main/lab/kg/io';
import { writeDataset } from '../../main/lab/synth/dataset';

export async function openDemoLab(prefix: string): Promise<{ core: LabCore; home: string }> {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const core = await LabCore.open({ home, detectBackend: false });
  writeGraphFile(join(home, 'graphs', 'g-demo.json'), demoGraph());
  writeDataset(join(home, 'datasets', 'd-demo.jsonl'), { graph: 'g-demo' }, demoQAs());
  await core.db.update((d) => {
    const createdAt = new Date().toISOString();
    d.graphs.push({ id: 'g-demo', name: 'demo graph', path: join('graphs', 'g-demo.json'), info: {}, createdAt });
    d.datasets.push({ id: 'd-demo', name: 'demo QAs', path: join('datasets', 'd-demo.jsonl'), info: { graphId: 'g-demo' }, createdAt });
  });
  return { core, home };
}
