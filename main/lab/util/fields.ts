// Validating parsed JSON field by field, with errors that name the file, the line (for JSON Lines) and
// the field path: `d.jsonl:7: query.patterns[0].rel: expected a string, got 5`. Shared by every reader
// of the lab's file formats.
import { excerpt, inputError, type LabError } from '../base/errors';

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A short description of a value for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing (the field is missing)';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return excerpt(value, 40);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

export class Fields {
  constructor(
    protected readonly file: string,
    protected readonly line?: number,
  ) {}

  fail(field: string, message: string): LabError {
    return inputError(this.file, message, { ...(this.line !== undefined ? { line: this.line } : {}), ...(field ? { field } : {}) });
  }

  obj(v: unknown, field: string): Obj {
    if (!isObj(v)) throw this.fail(field, `expected an object, got ${describeValue(v)}`);
    return v;
  }

  str(v: unknown, field: string, nonEmpty = true): string {
    if (typeof v !== 'string') throw this.fail(field, `expected a string, got ${describeValue(v)}`);
    if (nonEmpty && v.trim() === '') throw this.fail(field, 'expected a non-empty string');
    return v;
  }

  num(v: unknown, field: string): number {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw this.fail(field, `expected a finite number, got ${describeValue(v)}`);
    return v;
  }

  arr(v: unknown, field: string): unknown[] {
    if (!Array.isArray(v)) throw this.fail(field, `expected an array, got ${describeValue(v)}`);
    return v;
  }

  strings(v: unknown, field: string): string[] {
    return this.arr(v, field).map((x, i) => this.str(x, `${field}[${i}]`));
  }
}
