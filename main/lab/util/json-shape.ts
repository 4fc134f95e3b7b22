// Limits on the shape of JSON from outside (a request body, job params, a run config): how deep it nests, and no
// key named `__proto__`. A body nested thousands of levels deep passes JSON.parse, then overflows the stack of
// whatever walks it (a schema, structuredClone, a JSON writer) and, stored in db.json, breaks every later read;
// and the strict schemas drop an own `__proto__` key silently instead of refusing it like any unknown key.

/** Deeper than any params or config the lab defines (a run config nests 4 levels). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests deeper than `maxDepth` (arrays and objects), scanned without parsing it, so a deep
 * body is refused before anything recursive sees it. Brackets inside strings do not count.
 */
export function jsonTextTooDeep(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * The first thing wrong with a parsed JSON value's shape: a path nested deeper than `maxDepth`, or an own key
 * named `__proto__` (refused like any unknown key). Iterative, so a deep value cannot overflow the stack here.
 */
export function jsonShapeIssue(value: unknown, maxDepth = MAX_JSON_DEPTH): { path: string; message: string } | null {
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: '', depth: 0 }];
  while (stack.length) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxDepth) return { path: path || '(params)', message: `nested deeper than ${maxDepth} levels` };
    if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push({ v: x, path: `${path}[${i}]`, depth: depth + 1 }));
      continue;
    }
    for (const key of Object.keys(v)) {
      const at = path ? `${path}.${key}` : key;
      if (key === '__proto__') return { path: at, message: "unrecognized key '__proto__'" };
      stack.push({ v: (v as Record<string, unknown>)[key], path: at, depth: depth + 1 });
    }
  }
  return null;
}
