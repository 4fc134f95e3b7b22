// `sailor` command-line entry: finds the command by its words, parses its options strictly, runs it,
// and maps errors to exit codes (2: bad input or usage, 1: anything else).
import { parseArgs } from 'node:util';
import type { CliCommand, CliIO } from './command';
import { allCommands } from './commands';
import { boundedMessage, errorMessage, isUserError, LabError } from '../base/errors';

const processIO: CliIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export function helpText(commands: CliCommand[]): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  const lines = commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  return [
    'Sailor Lab: synthesise, train and inspect web/search agents on one machine.',
    '',
    'Usage: sailor <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'sailor <command> --help' for a command's options. Progress goes to stderr, results to stdout.",
    'Exit codes: 0 success, 2 bad input (the message names it), 1 other failure.',
    '',
  ].join('\n');
}

function commandHelp(cmd: CliCommand): string {
  const opts = Object.entries(cmd.options).map(([name, spec]) => {
    const head = `--${name}${spec.type === 'string' ? ' <value>' : ''}`;
    const def = spec.default !== undefined ? ` (default ${String(spec.default)})` : '';
    return `  ${head.padEnd(24)} ${spec.description}${def}`;
  });
  return [`Usage: sailor ${cmd.usage}`, '', cmd.summary, '', ...(opts.length ? ['Options:', ...opts] : []), ''].join('\n');
}

/** Longest match of the leading words against the command paths. */
function findCommand(commands: CliCommand[], argv: string[]): { cmd: CliCommand; rest: string[] } | undefined {
  let best: { cmd: CliCommand; rest: string[] } | undefined;
  for (const cmd of commands) {
    const n = cmd.path.length;
    if (argv.length >= n && cmd.path.every((w, i) => argv[i] === w) && (!best || n > best.cmd.path.length)) {
      best = { cmd, rest: argv.slice(n) };
    }
  }
  return best;
}

/**
 * The options as node's parseArgs takes them, without their defaults: a flag left out is not given (absent from
 * the values), so a command can tell it from one set to the default. The default is what --help shows; the
 * command applies it where it reads the flag (for `rollout`/`eval` a checkpoint's own tool-call limit wins).
 */
export function givenOnly(options: CliCommand['options']): CliCommand['options'] {
  return Object.fromEntries(Object.entries(options).map(([name, { default: _shown, ...spec }]) => [name, spec]));
}

export async function runCli(argv: string[], io: CliIO = processIO, commands: CliCommand[] = allCommands): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.out(helpText(commands));
    return 0;
  }
  if (argv[0] === '--version') {
    io.out('sailor-lab 0.1.0\n');
    return 0;
  }
  const found = findCommand(commands, argv);
  if (!found) {
    const group = commands.filter((c) => c.path[0] === argv[0]);
    const hint = group.length
      ? `'${argv.join(' ')}' is not a command; did you mean one of: ${group.map((c) => c.path.join(' ')).join(', ')}?`
      : `unknown command '${argv[0]}'. Run 'sailor --help' for the list.`;
    io.err(`sailor: ${hint}\n`);
    return 2;
  }
  const { cmd, rest } = found;
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(commandHelp(cmd));
    return 0;
  }
  try {
    const parsed = parseArgs({
      args: rest,
      options: givenOnly(cmd.options),
      allowPositionals: true,
      strict: true,
    });
    const { min, max } = cmd.positionals ?? { min: 0, max: 0 };
    if (parsed.positionals.length < min || parsed.positionals.length > max) {
      const want = min === max ? `${min}` : `${min} to ${max}`;
      throw new LabError('bad_request', `expected ${want} argument(s), got ${parsed.positionals.length}. Usage: sailor ${cmd.usage}`);
    }
    const code = await cmd.run({ values: parsed.values, positionals: parsed.positionals, io });
    return code ?? 0;
  } catch (err) {
    const parseError = (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS');
    if (parseError || isUserError(err)) {
      io.err(`sailor ${cmd.path.join(' ')}: ${boundedMessage(errorMessage(err))}\n`);
      return 2;
    }
    // Our own errors carry a message meant for the user; only an unexpected exception needs its stack.
    const text = err instanceof LabError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    io.err(`sailor ${cmd.path.join(' ')}: ${boundedMessage(text)}\n`);
    return 1;
  }
}
