// A real SPARQL server for the tests: Debian's OpenLink Virtuoso (`virtuoso-opensource-7`, which .ci/run
// installs), started on loopback ports in a scratch folder and loaded with an RDF file through its isql
// client. Stopped by its process id.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from './free-port';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const VIRTUOSO = process.env.VIRTUOSO_PATH ?? '/usr/bin/virtuoso-t';
export const ISQL = process.env.ISQL_PATH ?? '/usr/bin/isql-vt';
const VSP = '/var/lib/virtuoso-opensource-7/vsp';

export const virtuosoMissing = (): string | undefined =>
  existsSync(VIRTUOSO) && existsSync(ISQL) ? undefined : `Virtuoso is not installed (${VIRTUOSO}, ${ISQL}): apt-get install -y virtuoso-opensource-7, as .ci/run does`;

export interface Virtuoso {
  /** The SPARQL endpoint, http://127.0.0.1:PORT/sparql. */
  endpoint: string;
  /** Loads an RDF file (N-Triples or Turtle) into `graph`. */
  load(file: string, graph: string): void;
  stop(): Promise<void>;
}

export async function startVirtuoso(): Promise<Virtuoso> {
  const dir = mkdtempSync(join(tmpdir(), 'sailor-virtuoso-'));
  const [sqlPort, httpPort] = [await freePort(), await freePort()];
  writeFileSync(
    join(dir, 'virtuoso.ini'),
    `[Database]
DatabaseFile = ${dir}/virtuoso.db
ErrorLogFile = ${dir}/virtuoso.log
LockFile = ${dir}/virtuoso.lck
TransactionFile = ${dir}/virtuoso.trx
xa_persistent_file = ${dir}/virtuoso.pxa
FileExtend = 200
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = ${dir}/virtuoso-temp.db
TransactionFile = ${dir}/virtuoso-temp.trx
Striping = 0
[Parameters]
ServerPort = ${sqlPort}
DirsAllowed = ., ${dir}, ${tmpdir()}
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
ThreadsPerQuery = 1
[HTTPServer]
ServerPort = ${httpPort}
ServerRoot = ${VSP}
MaxClientConnections = 4
ServerThreads = 4
[SPARQL]
ResultSetMaxRows = 100000
MaxQueryExecutionTime = 60
`,
  );
  const child: ChildProcess = spawn(VIRTUOSO, ['+foreground', '+configfile', join(dir, 'virtuoso.ini')], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const endpoint = `http://127.0.0.1:${httpPort}/sparql`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`virtuoso-t exited (${child.exitCode}):\n${log}`);
    if (/Server online at/.test(log)) {
      try {
        const r = await fetch(`${endpoint}?query=${encodeURIComponent('ASK {}')}`, { headers: { accept: 'application/sparql-results+json' } });
        if (r.ok) break;
      } catch {
        // not listening yet
      }
    }
    if (Date.now() > deadline) throw new Error(`virtuoso-t did not come online in 120 s:\n${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    endpoint,
    load(file, graph) {
      const r = spawnSync(ISQL, [String(sqlPort), 'dba', 'dba', `exec=DB.DBA.TTLP_MT(file_to_string_output('${file}'), '', '${graph}');`], { encoding: 'utf8', timeout: 120_000 });
      if (r.status !== 0 || /\*\*\* Error/.test(r.stdout + r.stderr)) throw new Error(`isql could not load ${file}: ${r.stdout}${r.stderr}\n${readFileSync(join(dir, 'virtuoso.log'), 'utf8').slice(-2000)}`);
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
