import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import vue from '@vitejs/plugin-vue';

/** The renderer's way to the lab's contract and formats (tsconfig.web.json and vitest.config.ts name the same). */
export const RENDERER_ALIASES = {
  '@contract': resolve('main/lab/contract/index.ts'),
  '@formats': resolve('main/lab/formats/index.ts'),
};

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        // The job worker, the training replicas (SFT, RL update), the decoding thread and the RL rollout thread are
        // their own entries: worker threads load them by path next to index.js.
        input: {
          index: resolve('main/index.ts'),
          worker: resolve('main/lab/app/job-worker.ts'),
          replica: resolve('main/lab/model/replica-worker.ts'),
          'rl-replica': resolve('main/lab/train/rl-stage/update-worker.ts'),
          rollout: resolve('main/lab/train/rl-stage/rollout-worker.ts'),
          decoder: resolve('main/lab/model/decoder-worker.ts'),
        },
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
    resolve: { alias: RENDERER_ALIASES },
    build: {
      outDir: 'out/renderer',
      rollupOptions: {
        input: resolve('renderer/index.html'),
        // The views are loaded on demand (App.vue); their heavy libraries get chunks of their own, fetched
        // with the first view that needs them: cytoscape (Graph, Datasets), uPlot (Runs), and zod with the
        // contract's schemas (the run wizard validates with them; the shell only needs the contract's types).
        output: {
          codeSplitting: {
            groups: [
              { name: 'cytoscape', test: /node_modules[\\/]cytoscape[\\/]/ },
              { name: 'uplot', test: /node_modules[\\/]uplot[\\/]/ },
              { name: 'contract', test: /node_modules[\\/]zod[\\/]|main[\\/]lab[\\/]contract[\\/]/ },
            ],
          },
        },
      },
    },
  },
});
