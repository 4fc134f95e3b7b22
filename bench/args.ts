// The command-line flags of the timing scripts that take `--name value` pairs (kernels, profile-step, train).
export const args = process.argv.slice(2);

/** The value after `--name`, or undefined when the flag is not there. */
export function flag(name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}
