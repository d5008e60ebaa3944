/**
 * One-variable sets of reals as membership predicates, compared at test points: used when an
 * inequality cannot be turned into an interval directly (`1 \le |z| \le \frac32` vs
 * `[-\frac32,-1] \cup [1,\frac32]`).
 */
import type { AnswerNode, RelOp } from './structure.js';
import { freeVariables, realValue } from './scalar.js';

type Member = (x: number) => boolean | null;

function holds(l: number, op: RelOp, r: number): boolean {
  const eps = 1e-9 * Math.max(1, Math.abs(l), Math.abs(r));
  switch (op) {
    case '<':
      return l < r - eps;
    case '>':
      return l > r + eps;
    case 'le':
      return l <= r + eps;
    case 'ge':
      return l >= r - eps;
    case '=':
      return Math.abs(l - r) <= eps;
    case 'ne':
      return Math.abs(l - r) > eps;
    default:
      return false;
  }
}

/**
 * Builds a membership predicate for `node` over the variable `name`, collecting interval endpoints
 * into `ends`. Supports inequalities/relations in one variable, intervals and unions of them.
 * @returns `null` for shapes that are not a set of reals.
 */
export function membership(node: AnswerNode, name: string | null, ends: number[]): { member: Member; name: string | null } | null {
  if (node.kind === 'relation') {
    const vars = [...new Set(node.parts.flatMap(freeVariables))];
    if (vars.length !== 1 || (name !== null && vars[0] !== name)) return null;
    const v = vars[0] ?? '';
    const member: Member = (x) => {
      const vals = node.parts.map((p) => realValue(p, { [v]: x }));
      if (vals.some((y) => y === null)) return null;
      return node.ops.every((op, i) => holds(vals[i] as number, op, vals[i + 1] as number));
    };
    return { member, name: v };
  }
  if (node.kind === 'tuple' && node.items.length === 2) {
    const [a, b] = node.items;
    if (a?.kind !== 'expr' || b?.kind !== 'expr') return null;
    const lo = realValue(a.latex.replace(/^\+/, ''));
    const hi = realValue(b.latex.replace(/^\+/, ''));
    if (lo === null || hi === null || !(lo <= hi)) return null;
    for (const e of [lo, hi]) if (Number.isFinite(e)) ends.push(e);
    const openL = node.open === '(';
    const openR = node.close === ')';
    return { member: (x) => (openL ? x > lo : x >= lo) && (openR ? x < hi : x <= hi), name };
  }
  if (node.kind === 'union') {
    const parts: Member[] = [];
    let n = name;
    for (const p of node.parts) {
      const m = membership(p, n, ends);
      if (m === null) return null;
      n = m.name ?? n;
      parts.push(m.member);
    }
    return {
      member: (x) => {
        const r = parts.map((f) => f(x));
        if (r.some((y) => y === null)) return null;
        return r.some(Boolean);
      },
      name: n,
    };
  }
  return null;
}

/**
 * True when two one-variable sets agree at every test point: each endpoint, endpoint ± 1e-6, a grid
 * of −10…10 in steps of 1/4, and 40 pseudo-random points in ±100. At least 20 points must be
 * decidable on both sides.
 */
export function sameRealSet(g: AnswerNode, p: AnswerNode): boolean {
  const ends: number[] = [];
  const mg = membership(g, null, ends);
  if (mg === null) return false;
  const mp = membership(p, mg.name, ends);
  if (mp === null) return false;
  const points = new Set<number>();
  for (const e of ends) for (const d of [0, 1e-6, -1e-6]) points.add(e + d * Math.max(1, Math.abs(e)));
  for (let i = -40; i <= 40; i++) points.add(i / 4 + 1e-3);
  let seed = 12345;
  for (let i = 0; i < 40; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    points.add((seed / 2147483648) * 200 - 100);
  }
  let decided = 0;
  for (const x of points) {
    const a = mg.member(x);
    const b = mp.member(x);
    if (a === null || b === null) continue;
    if (a !== b) return false;
    decided++;
  }
  return decided >= 20;
}
