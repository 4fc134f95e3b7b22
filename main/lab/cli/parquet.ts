// Parquet for nested rows through hyparquet-writer: a column's type is described once (string, int64, list,
// struct) and becomes both the Parquet schema (3-level LISTs, groups for structs) and a check of every value,
// so a row Parquet cannot hold is refused with its row and field named rather than written wrong.
import { parquetWriteBuffer } from 'hyparquet-writer';
import { LabError } from '../base/errors';
import { describeValue, isObj } from '../util/fields';
import { writeFileAtomic } from '../store/files';

type SchemaElement = NonNullable<Parameters<typeof parquetWriteBuffer>[0]['schema']>[number];

export type PqType = { kind: 'string' } | { kind: 'int64' } | { kind: 'list'; of: PqType } | { kind: 'struct'; fields: Array<[string, PqType]> };

export const pq = {
  string: { kind: 'string' } as PqType,
  int64: { kind: 'int64' } as PqType,
  list: (of: PqType): PqType => ({ kind: 'list', of }),
  struct: (fields: Record<string, PqType>): PqType => ({ kind: 'struct', fields: Object.entries(fields) }),
};

/** The schema elements of one column (depth first, as Parquet's flattened schema lists them). */
export function schemaElements(name: string, type: PqType, repetition: 'REQUIRED' | 'OPTIONAL' = 'REQUIRED'): SchemaElement[] {
  switch (type.kind) {
    case 'string':
      return [{ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: repetition }];
    case 'int64':
      return [{ name, type: 'INT64', repetition_type: repetition }];
    case 'list':
      return [
        { name, repetition_type: repetition, converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        ...schemaElements('element', type.of),
      ];
    case 'struct':
      if (type.fields.length === 0) throw new LabError('bad_input', `parquet: the struct '${name}' has no fields (Parquet cannot hold an empty struct)`);
      return [{ name, repetition_type: repetition, num_children: type.fields.length }, ...type.fields.flatMap(([f, t]) => schemaElements(f, t))];
  }
}

/** The value converted for the writer (int64 as BigInt); throws naming `where` when it does not fit the type. */
export function toParquetValue(value: unknown, type: PqType, where: string): unknown {
  const fail = (want: string): never => {
    throw new LabError('bad_input', `${where}: expected ${want} for Parquet, got ${describeValue(value)}`);
  };
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? value : fail('a string');
    case 'int64':
      return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : fail('a whole number');
    case 'list':
      return Array.isArray(value) ? value.map((v, i) => toParquetValue(v, type.of, `${where}[${i}]`)) : fail('a list');
    case 'struct': {
      if (!isObj(value)) return fail('an object');
      const extra = Object.keys(value).filter((k) => !type.fields.some(([f]) => f === k));
      if (extra.length) throw new LabError('bad_input', `${where}: field '${extra[0]}' is not in the Parquet schema`);
      return Object.fromEntries(type.fields.map(([f, t]) => [f, toParquetValue(value[f], t, `${where}.${f}`)]));
    }
  }
}

/** Writes `rows` (objects with exactly the columns' fields) as one Parquet file, atomically: all checked first. */
export function writeParquetRows(file: string, columns: Array<[string, PqType]>, rows: ReadonlyArray<Record<string, unknown>>): void {
  if (rows.length === 0) throw new LabError('bad_input', `${file}: no rows to write`);
  const data = columns.map(([name, type]) => rows.map((r, i) => toParquetValue(r[name], type, `row ${i}: ${name}`)));
  const schema: SchemaElement[] = [{ name: 'root', num_children: columns.length }, ...columns.flatMap(([name, type]) => schemaElements(name, type))];
  const buffer = parquetWriteBuffer({ columnData: columns.map(([name], c) => ({ name, data: data[c]! })), schema });
  writeFileAtomic(file, new Uint8Array(buffer));
}
