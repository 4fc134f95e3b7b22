// Scale of `kg build --kb rdf:FILE`: writes a made-up N-Triples dump of about N triples (tests/support/rdf-world.ts,
// or with --wikidata one in the shape of Wikidata's truthy dump, tests/support/wikidata-truthy.ts, walked with the wikidata
// mapping), streams it into the embedded store, then walks 12000 edges over it. Prints the triples, load time
// (wall and CPU), peak RSS and heap, and the walk's time. Run under nice, e.g.
//   nice -n 10 node --expose-gc --import tsx bench/speed/kb-dump.ts 10000000 /tmp/wd-10m.nt --wikidata
// and the bundled knowledge base's walk, the peer figure: bench/speed/kb-dump.ts RNG --bundled
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { once } from 'node:events';
import { loadMapping, SourcedKb } from '../../main/lab/kbsource/index';
import { RdfFileStore } from '../../main/lab/kbsource/rdf';
import { expandFromSource, expandGraph } from '../../main/lab/kg/expand';
import { loadKbIndex } from '../../main/lab/kb/index';
import { classTriples, entityTriples } from '../../tests/support/rdf-world';
import { wdIri, wikidataClassTriples, wikidataEntityTriples } from '../../tests/support/wikidata-truthy';

const { values: flags, positionals: args } = parseArgs({
  allowPositionals: true,
  options: { wikidata: { type: 'boolean', default: false }, bundled: { type: 'boolean', default: false } },
});
const wikidata = flags.wikidata;
const target = Number(args[0] ?? 1_000_000);
const file = args[1] ?? join(tmpdir(), `sailor-kb-dump-${wikidata ? 'wikidata-' : ''}${target}.nt`);
// Triples per entity, measured on each world's mix of kinds.
const TRIPLES_PER_ENTITY = wikidata ? 11.25 : 6.9;
const world = wikidata ? { classes: wikidataClassTriples, entity: wikidataEntityTriples } : { classes: classTriples, entity: entityTriples };
const size = Math.ceil(target / TRIPLES_PER_ENTITY);

let peakRss = 0;
const sample = (): void => void (peakRss = Math.max(peakRss, process.memoryUsage.rss()));
const timer = setInterval(sample, 200);
const mb = (b: number): number => Math.round(b / 2 ** 20);
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

// --bundled: the same 12000-edge walk over the bundled knowledge base (loaded first, not timed), the peer figure.
if (flags.bundled) {
  const kb = await loadKbIndex();
  const rng = Number(args[0] ?? 7);
  const c = cpu();
  const t = performance.now();
  const graph = expandGraph(kb, { maxEdges: 12_000, rng });
  const walk = { walk_edges: graph.edges.length, walk_nodes: graph.nodes.length, walk_s: +((performance.now() - t) / 1000).toFixed(1), walk_cpu_s: +(cpu() - c).toFixed(1) };
  console.log(JSON.stringify({ kb: 'bundled', rng, ...walk, load_average: loadavg().map((x) => +x.toFixed(1)) }));
  process.exit(0);
}

if (!existsSync(file)) {
  const out = createWriteStream(file);
  let written = 0;
  for (const line of world.classes()) out.write(line + '\n');
  for (let i = 0; i < size; i++) {
    const chunk = world.entity(i, size);
    written += chunk.length;
    if (!out.write(chunk.join('\n') + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  process.stderr.write(`wrote ${file}: ${written} triples, ${mb(statSync(file).size)} MiB\n`);
}

const t0 = performance.now();
const c0 = cpu();
const store = await RdfFileStore.load(file, { onProgress: (n) => n % 1_000_000 === 0 && process.stderr.write(`${n} triples, rss ${mb(process.memoryUsage.rss())} MiB\n`) });
const loadMs = performance.now() - t0;
const loadCpu = cpu() - c0;
sample();
global.gc?.();
const afterLoad = process.memoryUsage();
const mapping = loadMapping(wikidata ? 'wikidata' : 'rdf');
if (!wikidata) mapping.prefixes = { ...mapping.prefixes, ex: 'http://example.org/' };
const kb = new SourcedKb(store, mapping);
const t1 = performance.now();
const c1 = cpu();
// The seed: a country (entity 3 of the Wikidata-shaped world; e7 of the other).
const graph = await expandFromSource(kb, { seed: wikidata ? kb.idOf(wdIri(3)) : 'ex:e7', maxEdges: 12_000, rng: 7 });
const walkMs = performance.now() - t1;
const walkCpu = cpu() - c1;
sample();
clearInterval(timer);
console.log(
  JSON.stringify({
    file,
    triples: store.figures().triples,
    file_mib: mb(statSync(file).size),
    load_s: +(loadMs / 1000).toFixed(1),
    load_cpu_s: +loadCpu.toFixed(1),
    rss_after_load_mib: mb(afterLoad.rss),
    heap_after_load_mib: mb(afterLoad.heapUsed),
    peak_rss_mib: mb(peakRss),
    walk_edges: graph.edges.length,
    walk_nodes: graph.nodes.length,
    walk_s: +(walkMs / 1000).toFixed(1),
    walk_cpu_s: +walkCpu.toFixed(1),
    load_average: loadavg().map((x) => +x.toFixed(1)),
  }),
);
