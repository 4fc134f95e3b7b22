// Lint: recommended rules for JS, TypeScript and Vue, plus the boundaries the architecture depends on.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import vueParser from 'vue-eslint-parser';

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...vue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parser: vueParser, parserOptions: { parser: tseslint.parser, sourceType: 'module' } },
  },
  {
    rules: {
      // TypeScript checks undefined names itself (typescript-eslint's advice); the rule misreads DOM/Node globals.
      'no-undef': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/multiline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
      'vue/html-indent': 'off',
      'vue/html-closing-bracket-newline': 'off',
      'vue/first-attribute-linebreak': 'off',
    },
  },
  {
    // The lab core runs in the CLI, the web server and workers: it must never pull in Electron.
    files: ['main/lab/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'main/lab is Electron-free; put desktop code in main/desktop.' }] }] },
  },
  {
    // The contract and formats are bundled into the renderer and the sandboxed preload.
    files: ['main/lab/contract/**/*.ts', 'main/lab/formats/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'electron', 'fs', 'path', 'os'], message: 'contract and formats must stay free of Node, Electron and DOM.' }] }],
    },
  },
  {
    // The renderer talks to the lab only through the contract client.
    files: ['renderer/**/*.{ts,vue}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'electron', '**/main/lab/*', '!**/main/lab/contract', '!**/main/lab/formats'], message: 'the renderer reaches the lab through the contract client only.' }] }] },
  },
);
