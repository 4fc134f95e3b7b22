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
