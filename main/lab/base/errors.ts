// One error type for the whole lab core. The code decides how each edge reports it:
// the CLI exits 2 for bad input and 1 otherwise; the API answers with the code and message.

export type ErrorCode =
  | 'bad_request' // a call or command line that does not fit its schema
  | 'bad_input' // a file whose content is malformed (names file, line, field)
  | 'not_found'
  | 'conflict'
  | 'corrupt' // stored data that cannot be read safely; never overwritten
  | 'unsupported'
  | 'cancelled'
  | 'busy' // a limit on work in flight (queued jobs, requests): try again later
  | 'no_space' // the disk is full: nothing was written, what was there is kept
  | 'internal';

export class LabError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'LabError';
  }
}

/** A malformed input file: the message names the file, and the line and field when known. */
export function inputError(file: string, message: string, where: { line?: number; field?: string } = {}): LabError {
  const loc = where.line !== undefined ? `${file}:${where.line}` : file;
  const field = where.field ? `${where.field}: ` : '';
  return new LabError('bad_input', `${loc}: ${field}${message}`, { file, ...where });
}

/**
 * Errors the user can act on from the message alone (a bad call or file, something missing, stored data
 * that cannot be read, such as a corrupt db.json): the CLI exits 2 and prints the message, no stack.
 */
export function isUserError(err: unknown): boolean {
  return err instanceof LabError && (['bad_request', 'bad_input', 'not_found', 'corrupt', 'unsupported'] as ErrorCode[]).includes(err.code);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** How much of something found in a file or a request an error message may quote. */
export const EXCERPT_CHARS = 80;

/**
 * A short, escaped excerpt of text found in a file or a request, for an error message: at most `max` characters,
 * quoted as JSON (control characters, quotes and lone surrogates escaped) and with the full length when cut.
 * Never more: a message must not carry a file's bytes (a 200 MB string, a secret) beyond it.
 */
export function excerpt(text: string, max = EXCERPT_CHARS): string {
  if (text.length <= max) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, max))}… (${text.length} characters)`;
}

/**
 * JSON.parse's complaint without the source text V8 quotes in it (`Unexpected token 'r', "root:x:0:0"... is not
 * valid JSON`): what and where, escaped and short.
 */
export function jsonSyntaxMessage(err: unknown): string {
  const message = errorMessage(err).replace(/, ".*"(?:\.\.\.)? is not valid JSON$/s, '');
  return message.length <= EXCERPT_CHARS && !/[^\x20-\x7e]/.test(message) ? message : excerpt(message);
}

/** A message at most this long reaches a client or a terminal (every quote inside it is an excerpt already). */
export const MAX_MESSAGE_CHARS = 2000;

export function boundedMessage(message: string): string {
  return message.length <= MAX_MESSAGE_CHARS ? message : `${message.slice(0, MAX_MESSAGE_CHARS)}… (message cut at ${MAX_MESSAGE_CHARS} of ${message.length} characters)`;
}
