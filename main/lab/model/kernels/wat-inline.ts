// Inlines the functions of a WebAssembly text module marked `;; @inline` (the line just above their `(func`)
// into every caller, at build time (simd-build.ts). Why: V8 as Node 20 ships it does not inline wasm calls,
// and every call spills the caller's live SIMD registers; for a small helper called once per four values (exp
// on four lanes) the call costs about as much as the work. Writing the helper out at each use would put the
// same polynomial in several places.
//
// A call `(call $f a b)` becomes `(block (result T) (local.set $f.p a) (local.set $f.q b) body)`, with the
// helper's parameters and locals renamed `$f.name` and declared once in each caller. Helpers must be written
// in folded form with named parameters and locals, take their arguments as folded expressions, and not
// branch to labels (their body is pasted as is); helpers may call other helpers (inlined first).

interface Helper {
  name: string;
  /** `$name type` of each parameter, then of each local. */
  params: [string, string][];
  locals: [string, string][];
  result: string;
  body: string;
}

/** Index just past the s-expression that opens at `start` (which must be '('). */
function closeOf(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === ';' && text[i + 1] === ';') {
      i = text.indexOf('\n', i);
      if (i < 0) break;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  throw new Error(`wat-inline: unbalanced parentheses from offset ${start}`);
}

/** The folded expressions (and bare tokens) of `text`, in order. */
function expressions(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) i++;
    else if (text.startsWith(';;', i)) i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (text[i] === '(') {
      const end = closeOf(text, i);
      out.push(text.slice(i, end));
      i = end;
    } else {
      const m = /^[^\s()]+/.exec(text.slice(i))!;
      out.push(m[0]);
      i += m[0].length;
    }
  }
  return out;
}

function parseHelper(func: string): Helper {
  const name = /^\(func (\$[\w.]+)/.exec(func)?.[1];
  if (!name) throw new Error('wat-inline: an @inline function needs a $name');
  const inner = expressions(func.slice(func.indexOf(name) + name.length, -1));
  const decl = (kind: string): [string, string][] =>
    inner.filter((e) => e.startsWith(`(${kind} `)).map((e) => {
      const m = new RegExp(`^\\(${kind} (\\$[\\w.]+) (\\w+)\\)$`).exec(e);
      if (!m) throw new Error(`wat-inline: ${name}: write one named ${kind} per declaration (${e})`);
      return [m[1]!, m[2]!];
    });
  const result = /^\(result (\w+)\)$/.exec(inner.find((e) => e.startsWith('(result ')) ?? '')?.[1];
  if (!result) throw new Error(`wat-inline: ${name} must return one value`);
  const body = inner.filter((e) => !/^\((param|local|result) /.test(e)).join('\n');
  return { name, params: decl('param'), locals: decl('local'), result, body };
}

/** `text` with the helper's parameter and local names prefixed by its own name. */
function renameLocals(text: string, h: Helper): string {
  const names = new Set([...h.params, ...h.locals].map(([n]) => n));
  return text.replace(/(local\.(?:get|set|tee) )(\$[\w.]+)/g, (all, op: string, n: string) => (names.has(n) ? `${op}${h.name}.${n.slice(1)}` : all));
}

/** Replaces each call of `h` in one function's text, and declares h's renamed locals there if it called h. */
function inlineInto(func: string, h: Helper): string {
  const callHead = `(call ${h.name} `;
  const callBare = `(call ${h.name})`;
  let out = func;
  let found = false;
  for (let at = out.indexOf(callHead); at >= 0; at = out.indexOf(callHead, at)) {
    found = true;
    const end = closeOf(out, at);
    const args = expressions(out.slice(at + callHead.length, end - 1));
    if (args.length !== h.params.length) throw new Error(`wat-inline: ${h.name} takes ${h.params.length} arguments, a call passes ${args.length}`);
    const sets = args.map((a, i) => `(local.set ${h.name}.${h.params[i]![0].slice(1)} ${a})`);
    const block = `(block (result ${h.result}) ${sets.join(' ')}\n${renameLocals(h.body, h)})`;
    out = out.slice(0, at) + block + out.slice(end); // searched again from `at`: the arguments may call h too
  }
  if (out.includes(callBare)) throw new Error(`wat-inline: ${h.name} called with no arguments`);
  if (!found) return func;
  const decls = [...h.params, ...h.locals].map(([n, t]) => `(local ${h.name}.${n.slice(1)} ${t})`).join(' ');
  const firstLocal = out.indexOf('(local ');
  if (firstLocal < 0) throw new Error(`wat-inline: a caller of ${h.name} must declare a local of its own (the helper's go beside it)`);
  return `${out.slice(0, firstLocal)}${decls}\n    ${out.slice(firstLocal)}`;
}

/** The module text with every `;; @inline` function written out at its calls and removed. Pure. */
export function inlineMarked(source: string): string {
  let text = source;
  const marker = /;; @inline[^\n]*\n\s*\(func /;
  for (let m = marker.exec(text); m; m = marker.exec(text)) {
    const start = m.index + m[0].length - '(func '.length;
    const end = closeOf(text, start);
    const helper = parseHelper(text.slice(start, end));
    text = text.slice(0, m.index) + text.slice(end);
    // Every other function, one at a time (a helper's callers may be helpers too).
    let out = '';
    let i = 0;
    for (let f = text.indexOf('(func ', i); f >= 0; f = text.indexOf('(func ', i)) {
      const fe = closeOf(text, f);
      out += text.slice(i, f) + inlineInto(text.slice(f, fe), helper);
      i = fe;
    }
    text = out + text.slice(i);
    if (text.includes(`(call ${helper.name}`)) throw new Error(`wat-inline: ${helper.name} is still called after inlining`);
  }
  return text;
}
