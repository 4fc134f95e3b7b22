import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import vue from '@vitejs/plugin-vue';
import { readFileSync } from 'node:fs';

// electron-vite reads the Electron version to pick its build target. Where the optional electron
// package could not install (Node < 22.12, offline), take the major version package.json asks for.
if (!process.env.ELECTRON_MAJOR_VER) {
  const pkg = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { optionalDependencies: Record<string, string> };
  process.env.ELECTRON_MAJOR_VER = /\d+/.exec(pkg.optionalDependencies.electron ?? '')?.[0] ?? '45';
}

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        // The job worker is its own entry: worker threads load it by path next to index.js.
        input: { index: resolve('main/index.ts'), worker: resolve('main/lab/jobs/worker.ts') },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve('preload/index.ts') },
        // Sandboxed preloads must be CommonJS; bundle zod and the contract in.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
      externalizeDeps: false,
    },
  },
  renderer: {
    root: 'renderer',
    base: './',
    plugins: [vue()],
    build: {
      outDir: 'out/renderer',
      rollupOptions: { input: resolve('renderer/index.html') },
    },
  },
});
