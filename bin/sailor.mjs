#!/usr/bin/env node
// `sailor` runs the TypeScript lab core directly through tsx, so it works right after `npm install`.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../main/lab/cli/index.ts');
const code = await runCli(process.argv.slice(2));
// Let stdout drain before exiting, so piped JSON is never cut short.
process.stdout.write('', () => process.exit(code));
