// Lookups by a name that came from outside (a request, a config, a graph or dataset file). A plain object
// answers `constructor`, `toString` or `__proto__` through its prototype; these helpers see own keys only.

/** `table[key]` when `key` is the table's own; undefined for any other name, prototype names included. */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** An object with exactly these entries as own data properties (an entry named `__proto__` stays an entry). */
export function recordOf<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  return Object.fromEntries(entries) as Record<string, T>;
}
