// The bundled real-world knowledge base: the lab's offline "internet". Built once from the installed
// data packages, cached as a sailor.graph/1 file under cacheDir()/kb-<version-hash>.json, and rebuilt
// when a package version, the extraction code (KB_SCHEMA_VERSION) or Node's ICU data changes.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Graph } from '../formats/index';
import { GRAPH_FORMAT } from '../formats/index';
import { cacheDir } from '../base/home';
import { removeAbandonedTemps, writeJsonAtomic } from '../store/files';
import { pidExists } from '../store/lockfile';
import { buildKnowledgeBase, KB_SCHEMA_VERSION, type ProgressFn } from './build';
import { createKbIndex, type KbIndex } from './kb-index';
import { packageVersions, readKbSources } from './sources';

export type { ProgressFn } from './build';
export { createKbIndex, otherEnd, type KbIndex } from './kb-index';
export { KB_PACKAGES } from './sources';

export interface LoadKbOptions {
  onProgress?: ProgressFn;
  /** Lab home (defaults to defaultHome()); the cache lives in its cache folder. */
  home?: string;
  /** Ignore the cache and build again. */
  rebuild?: boolean;
}

/** A short hash of everything the built KB depends on. */
export function kbVersion(): string {
  const key = JSON.stringify({
    schema: KB_SCHEMA_VERSION,
    packages: packageVersions(),
    // Currency and script names come from Node's ICU (Intl.DisplayNames).
    icu: process.versions.icu ?? 'none',
    cldr: process.versions.cldr ?? 'none',
  });
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}

export function kbCachePath(home?: string, version: string = kbVersion()): string {
  return join(cacheDir(home), `kb-${version}.json`);
}

/** The cached KB at `path` if it is a whole graph of this `version`; undefined means build it. */
export function readCachedKb(path: string, version: string): Graph | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const graph = JSON.parse(readFileSync(path, 'utf8')) as Graph;
    if (graph.format === GRAPH_FORMAT && graph.info?.kb_version === version && Array.isArray(graph.nodes)) return graph;
  } catch {
    // A torn or foreign file: the cache is derived data, so build it again.
  }
  return undefined;
}

/** Removes KB caches of other versions: each is tens of megabytes. */
function dropStaleCaches(dir: string, keep: string): void {
  if (!existsSync(dir)) return;
  for (const file of readdirSync(dir)) {
    if (/^kb-[0-9a-f]{12}\.json$/.test(file) && file !== keep) rmSync(join(dir, file), { force: true });
  }
}

const loaded = new Map<string, Promise<Graph>>();

/**
 * The whole knowledge base as one sailor.graph/1 graph. The first call in a fresh home builds it
 * (a few seconds) and reports progress; later calls read the cache; calls in the same process share
 * one promise.
 */
export function loadKnowledgeBase(options: LoadKbOptions = {}): Promise<Graph> {
  const version = kbVersion();
  const path = kbCachePath(options.home, version);
  const pending = options.rebuild ? undefined : loaded.get(path);
  if (pending) return pending;
  const promise = (async (): Promise<Graph> => {
    const progress = options.onProgress ?? (() => {});
    const cached = options.rebuild ? undefined : readCachedKb(path, version);
    if (cached) {
      progress(1, `knowledge base ${version} loaded from cache`);
      return cached;
    }
    progress(0, `building knowledge base ${version} from the bundled packages`);
    const steps = ['reading packages'];
    const sources = await readKbSources((message) => {
      steps.push(message);
      progress(Math.min(0.25, steps.length * 0.04), message);
    });
    const graph = buildKnowledgeBase(sources, version, progress);
    progress(0.9, `writing ${path}`);
    removeAbandonedTemps(cacheDir(options.home), pidExists, 0); // a build killed mid-write leaves ~25 MB
    writeJsonAtomic(path, graph);
    dropStaleCaches(cacheDir(options.home), `kb-${version}.json`);
    progress(1, `knowledge base ready: ${graph.nodes.length} entities, ${graph.edges.length} relations`);
    return graph;
  })();
  loaded.set(path, promise);
  promise.catch(() => loaded.delete(path)); // a failed build may be retried
  return promise;
}

/** The knowledge base with its index, ready for expansion. */
export async function loadKbIndex(options: LoadKbOptions = {}): Promise<KbIndex> {
  return createKbIndex(await loadKnowledgeBase(options));
}
