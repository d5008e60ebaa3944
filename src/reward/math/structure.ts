/**
 * Structural layer: splits a normalised answer into the shapes compute-engine does not compare
 * well — lists, sets, tuples/intervals, unions, matrices, ratios, relations — leaving scalar
 * LaTeX leaves (`expr`) for the scalar comparator.
 */

/** Relation operators after normalisation (`>`/`\ge` are kept; the comparator canonicalises). */
export type RelOp = '=' | '<' | '>' | 'le' | 'ge' | 'ne';

/** Parsed answer shape. */
export type AnswerNode =
  | { readonly kind: 'expr'; readonly latex: string; readonly degrees: boolean }
  | { readonly kind: 'text'; readonly value: string }
  /** Bare list `a, b, c` (ordered unless joined by `or`/`;`). */
  | { readonly kind: 'seq'; readonly items: readonly AnswerNode[]; readonly unordered: boolean }
  /** `\{a, b\}` or a `\pm` expansion: order-free. */
  | { readonly kind: 'set'; readonly items: readonly AnswerNode[] }
  /** `(a, b)`, `[a, b)`, …: a tuple, or an interval when it has two items. */
  | { readonly kind: 'tuple'; readonly open: '(' | '['; readonly close: ')' | ']'; readonly items: readonly AnswerNode[] }
  | { readonly kind: 'union'; readonly parts: readonly AnswerNode[] }
  | { readonly kind: 'matrix'; readonly rows: readonly (readonly string[])[] }
  | { readonly kind: 'ratio'; readonly items: readonly AnswerNode[] }
  | { readonly kind: 'relation'; readonly parts: readonly string[]; readonly ops: readonly RelOp[]; readonly degrees: boolean };

const OPENERS = new Set(['(', '[', '{']);
const CLOSERS = new Set([')', ']', '}']);

/** Depth of bracket nesting before each index; `\{`/`\}` count, `\left`/`\right` were removed earlier. */
function depthMap(s: string): number[] {
  const depth: number[] = new Array<number>(s.length).fill(0);
  let d = 0;
  let env = 0;
  for (let i = 0; i < s.length; i++) {
    depth[i] = d + env;
    if (s.startsWith('\\begin{', i)) env++;
    else if (s.startsWith('\\end{', i)) env = Math.max(0, env - 1);
    const ch = s[i] ?? '';
    if (ch === '\\') {
      const next = s[i + 1] ?? '';
      if (next === '{' || next === '}') {
        d += next === '{' ? 1 : -1;
        depth[i + 1] = d + env;
        i++;
      } else if (next === '\\') {
        depth[i + 1] = d + env;
        i++;
      }
      continue;
    }
    if (OPENERS.has(ch)) d++;
    else if (CLOSERS.has(ch)) d = Math.max(0, d - 1);
  }
  return depth;
}

/** Splits at top-level matches of `sep` (a sticky-free regex tested at each index). */
export function splitTop(s: string, sep: RegExp): string[] {
  const depth = depthMap(s);
  const parts: string[] = [];
  let from = 0;
  const re = new RegExp(sep.source, sep.flags.includes('g') ? sep.flags : `${sep.flags}g`);
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    if ((depth[m.index] ?? 0) !== 0) continue;
    parts.push(s.slice(from, m.index));
    from = m.index + m[0].length;
  }
  parts.push(s.slice(from));
  return parts.map((p) => p.trim());
}

/** Index of the bracket that closes the one at `open`, or -1. */
function matchingClose(s: string, open: number): number {
  let d = 0;
  for (let i = open; i < s.length; i++) {
    const ch = s[i] ?? '';
    if (ch === '\\') {
      const next = s[i + 1] ?? '';
      if (next === '{') d++;
      else if (next === '}') {
        d--;
        if (d === 0) return i + 1;
      }
      i++;
      continue;
    }
    if (OPENERS.has(ch)) d++;
    else if (CLOSERS.has(ch)) {
      d--;
      if (d === 0) return i;
    }
  }
  return -1;
}

const LIST_SEP = /,|\s+(?:or|and)\s+|(?<=[\d)\]}])\s*(?:or|and)\s*(?=[A-Za-z(\\\-\d])/;
const REL_SEP = /\\approx|\\le(?![a-zA-Z])|\\ge(?![a-zA-Z])|\\ne(?![a-zA-Z])|\\in(?![a-zA-Z])|\\equiv|=|<|>/;
const NAME_ATOM = String.raw`(?:[A-Za-z]|\\(?:alpha|beta|gamma|delta|theta|lambda|mu|phi|psi|omega|sigma|tau|rho|varphi|epsilon|varepsilon|Delta|Omega|Phi))(?:_\{?[A-Za-z0-9]+\}?)?'*`;
const NAME_RE = new RegExp(
  String.raw`^(?:${NAME_ATOM})+(?:\([^()]*\))?$|^\\frac\{(?:${NAME_ATOM})+\}\{(?:${NAME_ATOM})+\}$|^(?:${NAME_ATOM})+:(?:${NAME_ATOM})+$`,
);

/**
 * True for the left side of an assignment: letters with subscripts (`x`, `a_{37}`, `AB`),
 * a function value (`f(x)`), a ratio of names (`\frac{NO}{BO}`, `A:B`).
 */
export function isNameLike(latex: string): boolean {
  return NAME_RE.test(latex.replace(/\s+/g, ''));
}

/**
 * Key used to match assignment names: braces/spaces dropped; `W(n)` and `W(x)` share `W()` (a function named by
 * its variable), but `g(3)` and `g(2)` do not (values at different points).
 */
export function nameKey(latex: string): string {
  return latex
    .replace(/[\s{}]/g, '')
    .replace(/\(([A-Za-z](?:,[A-Za-z])*)\)$/, '()')
    .toLowerCase();
}

function relOp(tok: string): RelOp | 'approx' | 'in' {
  switch (tok) {
    case '\\approx':
      return 'approx';
    case '\\in':
      return 'in';
    case '\\le':
      return 'le';
    case '\\ge':
      return 'ge';
    case '\\ne':
      return 'ne';
    case '\\equiv':
      return '=';
    case '<':
      return '<';
    case '>':
      return '>';
    default:
      return '=';
  }
}

function expandPm(s: string): string[] | null {
  const i = s.search(/\\(?:pm|mp)(?![a-zA-Z])/);
  if (i < 0) return null;
  const isMp = s.startsWith('\\mp', i);
  const rest = s.slice(i + 3);
  const plus = `${s.slice(0, i)}+${rest}`;
  const minus = `${s.slice(0, i)}-${rest}`;
  return isMp ? [minus, plus] : [plus, minus];
}

/** Parses a matrix environment body into rows of cell LaTeX, or `null` when `s` is not one matrix. */
function parseMatrix(s: string): string[][] | null {
  const m = /^\\begin\{([a-zA-Z]*matrix|array)\}(\{[^{}]*\})?([\s\S]*)\\end\{\1\}$/.exec(s.trim());
  if (m === null) return null;
  const body = m[3] ?? '';
  if (/\\begin\{/.test(body)) return null;
  const rows = body
    .split(/\\\\/)
    .map((r) => r.trim())
    .filter((r) => r.length > 0);
  return rows.map((r) => r.split('&').map((c) => c.trim()));
}

/** Parses one list element (no top-level commas). */
function parseItem(s: string, degrees: boolean): AnswerNode {
  const t = s.trim();
  const pm = expandPm(t);
  if (pm !== null) return { kind: 'set', items: pm.map((x) => parseItem(x, degrees)) };

  const relParts = splitTopWithSeps(t, REL_SEP);
  if (relParts.parts.length > 1 && relParts.parts.every((p) => p.length > 0)) {
    let parts = relParts.parts;
    let ops = relParts.seps.map(relOp);
    const inAt = ops.indexOf('in');
    if (inAt >= 0) return parseItem(parts[inAt + 1] ?? '', degrees);
    const approxAt = ops.indexOf('approx');
    if (approxAt >= 0) {
      if (approxAt === 0 && isNameLike(parts[0] ?? '')) {
        ops = ops.map((o) => (o === 'approx' ? '=' : o));
        parts = [parts[0] ?? '', parts[parts.length - 1] ?? ''];
        ops = ['='];
      } else {
        parts = parts.slice(0, approxAt + 1);
        ops = ops.slice(0, approxAt);
      }
    }
    if (ops.length === 0) return parseItem(parts[0] ?? '', degrees);
    return { kind: 'relation', parts, ops: ops as RelOp[], degrees };
  }

  const union = splitTop(t, /\\cup(?![a-zA-Z])/);
  if (union.length > 1) return { kind: 'union', parts: union.map((u) => parseItem(u, degrees)) };

  // `\left[\begin{array}{cc}…\end{array}\right]`: brackets around a matrix environment are its delimiters.
  const wrapped = /^[([]\s*(\\begin\{([a-zA-Z]*matrix|array)\}[\s\S]*\\end\{\2\})\s*[)\]]$/.exec(t);
  const matrix = parseMatrix(wrapped?.[1] ?? t);
  if (matrix !== null) return { kind: 'matrix', rows: matrix };

  if (t.startsWith('\\{') && matchingClose(t, 0) === t.length - 1 && t.endsWith('\\}')) {
    const inner = t.slice(2, -2).trim();
    const items = inner === '' ? [] : splitTop(inner, /,|;/).map((x) => parseAnswerNode(x, degrees));
    return { kind: 'set', items };
  }
  const first = t[0] ?? '';
  if ((first === '(' || first === '[') && matchingClose(t, 0) === t.length - 1) {
    const close = t[t.length - 1];
    const inner = t.slice(1, -1).trim();
    const items = splitTop(inner, /,/);
    if (items.length === 1 && first === '(' && close === ')') return parseAnswerNode(inner, degrees);
    if (close === ')' || close === ']') {
      return { kind: 'tuple', open: first, close, items: items.map((x) => parseAnswerNode(x, degrees)) };
    }
  }
  if (first === '{' && matchingClose(t, 0) === t.length - 1) return parseAnswerNode(t.slice(1, -1), degrees);

  const ratio = splitTop(t, /(?<!\\):/);
  if (ratio.length > 1 && ratio.every((r) => r.length > 0)) return { kind: 'ratio', items: ratio.map((r) => parseItem(r, degrees)) };

  const text = /^\\text\{([^{}]*)\}$/.exec(t);
  if (text !== null) return { kind: 'text', value: (text[1] ?? '').replace(/[()]/g, '').trim().toLowerCase() };
  if (/^[A-Za-z]+(?: [A-Za-z]+)+$/.test(t) || (/^[a-z]{3,}$/i.test(t) && !/^(?:sin|cos|tan|log|ln|exp|pi)/.test(t))) {
    return { kind: 'text', value: t.toLowerCase() };
  }
  return { kind: 'expr', latex: t, degrees };
}

function splitTopWithSeps(s: string, sep: RegExp): { parts: string[]; seps: string[] } {
  const depth = depthMap(s);
  const parts: string[] = [];
  const seps: string[] = [];
  let from = 0;
  const re = new RegExp(sep.source, 'g');
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    if ((depth[m.index] ?? 0) !== 0) continue;
    // `\left<`-style or `<` inside `\langle` is not a relation; skip `=` that is part of `\le`/`\ge` (handled by regex order).
    parts.push(s.slice(from, m.index).trim());
    seps.push(m[0]);
    from = m.index + m[0].length;
  }
  parts.push(s.slice(from).trim());
  return { parts, seps };
}

/**
 * Parses a normalised answer into an {@link AnswerNode}. Top-level `;` makes an order-free list of
 * groups (`p=5,q=2;p=7,q=2`); top-level `,`/`and`/`or` makes a list; `\pm` expands to a set;
 * relations split on `= < > \le \ge \ne \approx \in` (`x \in S` → `S`; `x = 5+5+1 = 7 \approx 11`
 * keeps the exact part); `\cup` → union; `\{…\}` → set; `(…)`/`[…)` → tuple or interval; matrix
 * environments → rows of cells; `a:b` → ratio; `\text{…}` or words → text.
 * @param degrees - the normaliser removed a degree mark (carried to scalar leaves).
 */
export function parseAnswerNode(s: string, degrees = false): AnswerNode {
  const t = s.trim();
  const groups = splitTop(t, /;/).filter((g) => g.length > 0);
  if (groups.length > 1) return { kind: 'seq', items: groups.map((g) => parseAnswerNode(g, degrees)), unordered: true };
  const items = splitTopWithSeps(t, LIST_SEP);
  const nonEmpty = items.parts.filter((p) => p.length > 0);
  if (nonEmpty.length > 1) {
    const unordered = items.seps.some((x) => /or|and/.test(x));
    return { kind: 'seq', items: nonEmpty.map((p) => parseItem(p, degrees)), unordered };
  }
  return parseItem(nonEmpty[0] ?? t, degrees);
}

/** True when braces and brackets balance (a cheap well-formedness check). */
export function bracketsBalanced(s: string): boolean {
  let braces = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '{') braces++;
    else if (ch === '}') {
      braces--;
      if (braces < 0) return false;
    }
  }
  return braces === 0;
}
