// Builds the bundled knowledge base into a scratch home and prints its figures: entities per type,
// relations, cold and cached load times, file size. Run: npx tsx bench/speed/kb-build.ts [home]
import { statSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { kbCachePath, loadKnowledgeBase } from '../../main/lab/kb/index';
import { graphStats } from '../../main/lab/kg/stats';

const home = parseArgs({ allowPositionals: true }).positionals[0] ?? mkdtempSync(join(tmpdir(), 'sailor-kb-bench-'));
const t0 = performance.now();
const graph = await loadKnowledgeBase({ home, rebuild: true, onProgress: (f, m) => process.stderr.write(`[${Math.round(f * 100)}%] ${m}\n`) });
const cold = performance.now() - t0;
const stats = graphStats(graph);
const t1 = performance.now();
// A fresh process would read the cache; simulate by parsing the file again.
const { readFileSync } = await import('node:fs');
JSON.parse(readFileSync(kbCachePath(home), 'utf8'));
const cached = performance.now() - t1;
console.log(
  JSON.stringify(
    { home, cold_ms: Math.round(cold), cached_parse_ms: Math.round(cached), file_mb: +(statSync(kbCachePath(home)).size / 1e6).toFixed(1), info: graph.info, ...stats },
    null, 2,
  ),
);
