// Where the lab keeps its data. SAILOR_HOME wins; the desktop app passes Electron's userData;
// otherwise a folder in the user's home. Nothing else in the core decides paths on its own.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function defaultHome(): string {
  const env = process.env.SAILOR_HOME;
  return env && env.trim() !== '' ? resolve(env) : join(homedir(), '.sailor-lab');
}

/** Cache for derived data that can always be rebuilt (the bundled knowledge base, tokenizers …). */
export function cacheDir(home: string = defaultHome()): string {
  return join(home, 'cache');
}
