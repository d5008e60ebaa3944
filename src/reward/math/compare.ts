/**
 * Structural comparison of two {@link AnswerNode}s: lists, sets (order-free), tuples and intervals
 * (open/closed flags), unions, matrices (element-wise), ratios, relations (assignments, equations up
 * to a constant factor, inequalities up to a positive factor, inequality ↔ interval), degrees.
 */
import { isNameLike, nameKey, parseAnswerNode, type AnswerNode, type RelOp } from './structure.js';
import { sameRealSet } from './point-set.js';
import { realValue } from './scalar.js';
import { evaluateMatrix, isConstant, proportional, scalarEqual, type NumericPolicy } from './scalar.js';

/** Mutable record of what could not be parsed during one comparison. */
export interface CompareContext {
  readonly policy: NumericPolicy;
  goldInvalid: boolean;
  predInvalid: boolean;
}

const expr = (latex: string, degrees = false): AnswerNode => ({ kind: 'expr', latex, degrees });
const parseValue = (latex: string, degrees: boolean): AnswerNode => parseAnswerNode(latex, degrees);

/** Assignment view of a relation: `x = 5` → value `5`; chains keep the last part. */
interface Assignment {
  readonly name: string | null;
  readonly value: string;
}

/** A tuple of names, the left side of a named tuple: `(x, y)`, `(a_1, b_1, c)`. */
const NAME_TUPLE = /^\(\s*[A-Za-z](?:_\{?\w+\}?)?(?:\s*,\s*[A-Za-z](?:_\{?\w+\}?)?)+\s*\)$/;

function asAssignment(n: AnswerNode): Assignment | null {
  if (n.kind !== 'relation' || !n.ops.every((o) => o === '=')) return null;
  const first = n.parts[0] ?? '';
  const last = n.parts[n.parts.length - 1] ?? '';
  if (n.parts.length >= 3) return { name: isNameLike(first) || NAME_TUPLE.test(first) ? first : null, value: last };
  if (isNameLike(first) || NAME_TUPLE.test(first)) return { name: first, value: last };
  if (isConstant(first) && isConstant(last)) return { name: null, value: last };
  return null;
}

function flip(op: RelOp): RelOp {
  switch (op) {
    case '<':
      return '>';
    case '>':
      return '<';
    case 'le':
      return 'ge';
    case 'ge':
      return 'le';
    default:
      return op;
  }
}

/**
 * Converts `x op c`, `c op x`, `a op x op b` into an interval node when `x` is a bare name (`x`,
 * `f(x)`) and the ends are constants; `1 \le |z| \le 2` is left to the point-set comparison.
 */
function relationToInterval(n: AnswerNode): AnswerNode | null {
  if (n.kind !== 'relation') return null;
  const isLower = (o: RelOp): boolean => o === '<' || o === 'le';
  const isUpper = (o: RelOp): boolean => o === '>' || o === 'ge';
  const strict = (o: RelOp): boolean => o === '<' || o === '>';
  if (n.parts.length === 2) {
    const [l = '', r = ''] = n.parts;
    let op = n.ops[0] ?? '=';
    let c: string;
    if (isConstant(r) && isNameLike(l)) c = r;
    else if (isConstant(l) && isNameLike(r)) {
      c = l;
      op = flip(op);
    } else return null;
    if (isLower(op)) return { kind: 'tuple', open: '(', close: strict(op) ? ')' : ']', items: [expr('-\\infty'), expr(c)] };
    if (isUpper(op)) return { kind: 'tuple', open: strict(op) ? '(' : '[', close: ')', items: [expr(c), expr('\\infty')] };
    return null;
  }
  if (n.parts.length === 3) {
    let [a = '', , b = ''] = n.parts;
    let [o1 = '=', o2 = '='] = n.ops;
    if (!isNameLike(n.parts[1] ?? '') || !isConstant(a) || !isConstant(b)) return null;
    if (isUpper(o1) && isUpper(o2)) {
      [a, b] = [b, a];
      [o1, o2] = [flip(o2), flip(o1)];
    }
    if (!isLower(o1) || !isLower(o2)) return null;
    return { kind: 'tuple', open: strict(o1) ? '(' : '[', close: strict(o2) ? ')' : ']', items: [expr(a), expr(b)] };
  }
  return null;
}

function canonicalStep(l: string, op: RelOp, r: string): { f: string; op: RelOp } {
  if (op === '>' || op === 'ge') return { f: `(${r})-(${l})`, op: op === '>' ? '<' : 'le' };
  return { f: `(${l})-(${r})`, op };
}

function relationsEquivalent(g: AnswerNode & { kind: 'relation' }, p: AnswerNode & { kind: 'relation' }, ctx: CompareContext): boolean {
  if (g.ops.length !== p.ops.length) return false;
  const tryOrder = (pp: readonly string[], po: readonly RelOp[]): boolean =>
    g.ops.every((gop, i) => {
      const gs = canonicalStep(g.parts[i] ?? '', gop, g.parts[i + 1] ?? '');
      const ps = canonicalStep(pp[i] ?? '', po[i] ?? '=', pp[i + 1] ?? '');
      if (gs.op !== ps.op) return false;
      return proportional(gs.f, ps.f, gs.op === '=' || gs.op === 'ne' ? 'any' : 'positive', ctx.policy);
    });
  if (tryOrder(p.parts, p.ops)) return true;
  return tryOrder([...p.parts].reverse(), [...p.ops].reverse().map(flip));
}

function items(n: AnswerNode): readonly AnswerNode[] | null {
  switch (n.kind) {
    case 'seq':
    case 'set':
    case 'tuple':
    case 'ratio':
      return n.items;
    default:
      return null;
  }
}

function ordered(a: readonly AnswerNode[], b: readonly AnswerNode[], ctx: CompareContext): boolean {
  return a.length === b.length && a.every((x, i) => compareNodes(x, b[i] as AnswerNode, ctx));
}

function unordered(a: readonly AnswerNode[], b: readonly AnswerNode[], ctx: CompareContext): boolean {
  if (a.length !== b.length) {
    // Duplicates do not change a set: `{(3,17,3,7), (3,17,3,7)}` ≡ `{(3,17,3,7)}`.
    const dedupe = (xs: readonly AnswerNode[]): AnswerNode[] => xs.filter((x, i) => !xs.slice(0, i).some((y) => compareNodes(y, x, ctx)));
    const da = dedupe(a);
    const db = dedupe(b);
    if (da.length !== db.length) return false;
    a = da;
    b = db;
  }
  const used = new Array<boolean>(b.length).fill(false);
  return a.every((x) => {
    const j = b.findIndex((y, k) => !used[k] && compareNodes(x, y, ctx));
    if (j < 0) return false;
    used[j] = true;
    return true;
  });
}

/** `3:8` ≡ `6:16`: non-zero constant terms in the same order, proportional by one positive factor. */
function sameRatio(a: readonly AnswerNode[], b: readonly AnswerNode[]): boolean {
  if (a.length !== b.length || a.length < 2) return false;
  const values = (xs: readonly AnswerNode[]): number[] | null => {
    const out: number[] = [];
    for (const x of xs) {
      const v = x.kind === 'expr' ? realValue(x.latex) : null;
      if (v === null || !Number.isFinite(v)) return null;
      out.push(v);
    }
    return out;
  };
  const va = values(a);
  const vb = values(b);
  if (va === null || vb === null) return false;
  // A zero term makes it no ratio (`12:00` is a time): only identical terms match then.
  if (va.some((x) => x === 0) || vb.some((x) => x === 0)) return false;
  const c = (vb[0] as number) / (va[0] as number);
  if (!(c > 0)) return false;
  return va.every((x, i) => Math.abs((vb[i] as number) - c * x) <= 1e-9 * Math.max(1, Math.abs(vb[i] as number), Math.abs(c * x)));
}

function isStructured(n: AnswerNode): boolean {
  return n.kind === 'tuple' || n.kind === 'relation' || n.kind === 'set' || n.kind === 'seq';
}

function stringOf(n: AnswerNode): string {
  switch (n.kind) {
    case 'expr':
      return n.latex;
    case 'text':
      return n.value;
    case 'relation':
      return n.parts.join('=');
    default:
      return JSON.stringify(n);
  }
}

function scalar(g: AnswerNode & { kind: 'expr' }, p: AnswerNode & { kind: 'expr' }, ctx: CompareContext): boolean {
  const out = scalarEqual(g.latex, p.latex, ctx.policy);
  if (out.equal) return true;
  if (out.invalid === 'gold' || out.invalid === 'both') ctx.goldInvalid = true;
  if (out.invalid === 'pred' || out.invalid === 'both') ctx.predInvalid = true;
  // A degree value equals its number (math-verify convention, handled above) but never its radians:
  // `45^\circ` ≢ `\frac{\pi}{4}` (a reward that converts would credit `\frac{\pi}{4}` for `45` too).
  return false;
}

/**
 * Compares a gold node with a predicted node. Rules, in order: one-item lists unwrap; text is
 * compared case-insensitively; assignments (`x = 5`, `f(x) = 1`, chains `x = 5+5+1 = 11`) reduce to
 * their value when the other side is a value, and match by name when both are assignments;
 * relation ↔ interval when one side is an interval; equations/inequalities by proportionality;
 * sets, bare lists (`2,5,9` ≡ `9,5,2`), `or`/`;` lists and lists of tuples order-free; tuples in order
 * (also against a bare list); a degree value equals its number, never its radians;
 * intervals compare brackets and endpoints; unions order-free; matrices element-wise (a matrix
 * expression such as a sum is evaluated first).
 */
export function compareNodes(g: AnswerNode, p: AnswerNode, ctx: CompareContext): boolean {
  const gi = items(g);
  const pi = items(p);
  if ((g.kind === 'seq' || g.kind === 'set') && gi?.length === 1 && gi[0] !== undefined) return compareNodes(gi[0], p, ctx);
  if ((p.kind === 'seq' || p.kind === 'set') && pi?.length === 1 && pi[0] !== undefined) return compareNodes(g, pi[0], ctx);

  if (g.kind === 'text' || p.kind === 'text') {
    const norm = (s: string): string =>
      s
        .replace(/\\text\{([^{}]*)\}/g, '$1')
        .replace(/[\s()]/g, '')
        .replace(/[.,;:!]+$/, '')
        .toLowerCase();
    return norm(stringOf(g)) === norm(stringOf(p));
  }

  if (g.kind === 'relation' || p.kind === 'relation') {
    const ga = asAssignment(g);
    const pa = asAssignment(p);
    if (g.kind === 'relation' && p.kind === 'relation') {
      if (ga !== null && pa !== null && ga.name !== null && pa.name !== null && nameKey(ga.name) === nameKey(pa.name)) {
        return compareNodes(parseValue(ga.value, g.degrees), parseValue(pa.value, p.degrees), ctx) || relationsEquivalent(g, p, ctx);
      }
      if (ga !== null && pa !== null && (ga.name === null || pa.name === null)) {
        if (compareNodes(parseValue(ga.value, g.degrees), parseValue(pa.value, p.degrees), ctx)) return true;
      }
      if (relationsEquivalent(g, p, ctx)) return true;
      const gI = relationToInterval(g);
      const pI = relationToInterval(p);
      if (gI !== null && pI !== null) return compareNodes(gI, pI, ctx);
      if (gI !== null) return sameRealSet(gI, p);
      if (pI !== null) return sameRealSet(g, pI);
      return false;
    }
    if (g.kind === 'relation') {
      if (ga !== null) return compareNodes(parseValue(ga.value, g.degrees), p, ctx);
      const gI = relationToInterval(g);
      if (gI !== null && p.kind !== 'expr' && compareNodes(gI, p, ctx)) return true;
      return (p.kind === 'tuple' || p.kind === 'union') && sameRealSet(g, p);
    }
    if (p.kind === 'relation') {
      if (p.ops.every((o) => o === '=')) return compareNodes(g, parseValue(p.parts[p.parts.length - 1] ?? '', p.degrees), ctx);
      const pI = relationToInterval(p);
      if (pI !== null && g.kind !== 'expr' && compareNodes(g, pI, ctx)) return true;
      return (g.kind === 'tuple' || g.kind === 'union') && sameRealSet(g, p);
    }
  }

  if (g.kind === 'expr' && p.kind === 'expr') return scalar(g, p, ctx);

  if (g.kind === 'matrix' || p.kind === 'matrix') {
    const rowsOf = (n: AnswerNode): readonly (readonly string[])[] | null =>
      n.kind === 'matrix' ? n.rows : n.kind === 'expr' ? evaluateMatrix(n.latex) : null;
    const gr = rowsOf(g);
    const pr = rowsOf(p);
    if (gr === null || pr === null || gr.length !== pr.length) return false;
    return gr.every((row, i) => {
      const prow = pr[i] ?? [];
      return row.length === prow.length && row.every((c, j) => scalar(expr(c) as never, expr(prow[j] ?? '') as never, ctx));
    });
  }

  if (g.kind === 'union' || p.kind === 'union') {
    if (g.kind !== 'union' || p.kind !== 'union') return false;
    return unordered(g.parts, p.parts, ctx);
  }

  if (gi !== null && pi !== null) {
    if (g.kind === 'tuple' && p.kind === 'tuple') {
      return g.open === p.open && g.close === p.close && ordered(gi, pi, ctx);
    }
    if (g.kind === 'ratio' || p.kind === 'ratio') return g.kind === p.kind && (ordered(gi, pi, ctx) || sameRatio(gi, pi));
    const setLike = g.kind === 'set' || p.kind === 'set' || (g.kind === 'seq' && g.unordered) || (p.kind === 'seq' && p.unordered);
    if (g.kind === 'tuple' || p.kind === 'tuple') {
      const t = g.kind === 'tuple' ? g : p;
      if (t.kind === 'tuple' && (t.open !== '(' || t.close !== ')')) return false;
      if (setLike) return unordered(gi, pi, ctx);
      return ordered(gi, pi, ctx);
    }
    if (ordered(gi, pi, ctx)) return true;
    const ofStructures = gi.some(isStructured) || pi.some(isStructured);
    // Two bare lists are lists of solutions: order-free (`2,5,9` ≡ `9,5,2`); a parenthesised tuple keeps its order.
    const bothBare = g.kind === 'seq' && p.kind === 'seq';
    if (setLike || ofStructures || bothBare) return unordered(gi, pi, ctx);
    return false;
  }
  return false;
}
