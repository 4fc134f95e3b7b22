import { defineConfig } from 'vitest/config';
import { RENDERER_ALIASES } from './electron.vite.config.ts';

export default defineConfig({
  // Unit tests import renderer modules, which reach the contract through its alias.
  resolve: { alias: RENDERER_ALIASES },
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/renderer/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: keep worker count bounded so heavy tests do not starve each other.
    maxWorkers: 2,
  },
});
