/**
 * Near-miss generator: from a gold answer, derives answers that are mathematically different but look almost the
 * same (the mistakes a policy makes and a lax grader forgives). Every mutation is chosen so that the result can
 * never be equal to the gold; where that depends on the value (negating 0, inverting 1), the mutation is skipped.
 */
import { normalizeMathAnswer } from '../../../src/reward/math/normalize.js';
import { realValue } from '../../../src/reward/math/scalar.js';
import { splitTop } from '../../../src/reward/math/structure.js';

/** One derived wrong answer. */
export interface NearMiss {
  readonly kind: string;
  readonly pred: string;
}

/** Value of a LaTeX scalar when it is a finite real constant, else null. */
function scalarValue(latex: string): number | null {
  const v = realValue(normalizeMathAnswer(latex));
  return v !== null && Number.isFinite(v) ? v : null;
}

/** Whether `s` is one scalar expression (no list, relation, set, interval, matrix, text or ±). */
function isScalar(s: string): boolean {
  const n = normalizeMathAnswer(s);
  if (n === '' || /\\text|\\begin|\\pm|\\mp|\\infty|\\cup|[=<>]|\\le|\\ge|\\ne|\\in(?![a-z])|\\%|:|\|/.test(n)) return false;
  if (splitTop(n, /,|;/).length > 1) return false;
  if (/^[([]/.test(n) && /[)\]]$/.test(n) && splitTop(n.slice(1, -1), /,/).length > 1) return false;
  if (/^\\\{/.test(n)) return false;
  return /\d|\\pi|\\sqrt|\\frac|[a-z]/i.test(n);
}

/** Masks `\text{…}`, `\begin{…}{…}`, `\end{…}`, subscripts and command names so numbers there are not mutated. */
function mutableDigits(s: string): boolean[] {
  const ok = new Array<boolean>(s.length).fill(true);
  const block = (re: RegExp) => {
    for (const m of s.matchAll(re)) for (let i = m.index; i < m.index + m[0].length; i++) ok[i] = false;
  };
  // Units with their exponent (`\mbox{ cm}^2`), command arguments, `\binom` (C(5,2) = C(5,3)).
  block(/\\(?:text|mathrm|operatorname|mbox|begin|end)\s*\{[^{}]*\}(?:\{[^{}]*\})?(?:\^\s*\{?\d+\}?)?/g);
  block(/\\binom\s*\{[^{}]*\}\s*\{[^{}]*\}/g);
  // In a chain `z = 1 + 1 = 2` the answer is the last part; earlier parts are working, not the answer.
  const eqs = [...s.matchAll(/(?<![<>!\\a-z])=/g)];
  if (eqs.length >= 2) for (let i = 0; i < (eqs[eqs.length - 1]?.index ?? 0); i++) ok[i] = false;
  block(/_\{[^{}]*\}|_\w/g);
  block(/\\[a-zA-Z]+/g);
  block(/\^\s*\{?\s*\\circ\s*\}?/g);
  return ok;
}

/** Integer literals (maximal digit runs, not part of a decimal) that may be changed, with their offsets. */
function integerLiterals(s: string): { at: number; text: string }[] {
  const ok = mutableDigits(s);
  const out: { at: number; text: string }[] = [];
  for (const m of s.matchAll(/(?<![\d.])\d+(?![\d.])/g)) {
    if (!ok[m.index]) continue;
    // An exponent or base that is 0 or 1 can hide a change (`1^{5}`, `0^{2}`); skip literals next to `^`.
    const before = s.slice(0, m.index);
    const after = s.slice(m.index + m[0].length);
    if (/\^\s*\{?\s*-?$/.test(before) && /^(0|1)$/.test(m[0])) continue;
    if (/^\s*\^/.test(after) && /^(0|1)$/.test(m[0])) continue;
    if (/\^\s*\{?\s*-?$/.test(before) && /(?:^|[^\d])[01]\s*\^\s*\{?\s*-?$/.test(before)) continue;
    out.push({ at: m.index, text: m[0] });
  }
  return out;
}

const replaceAt = (s: string, at: number, len: number, by: string): string => s.slice(0, at) + by + s.slice(at + len);

/** Splits `(a, b)`, `[a, b)`, `\{a, b\}` or a bare `a, b` into its parts; null for a single item. */
function listParts(s: string): { open: string; close: string; items: string[] } | null {
  const t = s.trim();
  for (const [open, close] of [
    ['\\{', '\\}'],
    ['\\left(', '\\right)'],
    ['\\left[', '\\right]'],
    ['(', ')'],
    ['[', ']'],
    ['(', ']'],
    ['[', ')'],
  ] as const) {
    if (t.startsWith(open) && t.endsWith(close)) {
      const inner = t.slice(open.length, t.length - close.length);
      if (/[()[\]]/.test(inner.replace(/\\[a-zA-Z]+/g, '')) && open.length === 1) {
        // Nested brackets: make sure the outer pair matches.
        let d = 0;
        let matched = true;
        for (let i = 0; i < t.length - 1; i++) {
          const c = t[i];
          if (c === '(' || c === '[' || c === '{') d++;
          else if (c === ')' || c === ']' || c === '}') d--;
          if (d === 0 && i > 0) {
            matched = false;
            break;
          }
        }
        if (!matched) continue;
      }
      const items = splitTop(inner, /,/);
      if (items.length >= 2) return { open, close, items };
    }
  }
  const items = splitTop(t, /,/);
  return items.length >= 2 ? { open: '', close: '', items } : null;
}

/**
 * Wrong answers derived from `gold` (LaTeX without `$`): sign flipped, off by one (value and literals), a
 * tuple's or interval's entries swapped, an item dropped or changed, an exponent changed, π vs π/2, a fraction
 * inverted, a root dropped or added, doubled, halved, squared, cubed, times π, the reciprocal, +10, +½, a digit appended, a
 * radian value in degrees, times `\mathrm{e}`/`\mathrm{i}`/`\mathrm{d}`, ten times the value as a percent.
 */
export function nearMisses(gold: string): NearMiss[] {
  const g = gold.trim();
  const out: NearMiss[] = [];
  const add = (kind: string, pred: string | null) => {
    if (pred !== null && pred.replace(/\s+/g, '') !== g.replace(/\s+/g, '')) out.push({ kind, pred });
  };
  const scalar = isScalar(g);
  const v = scalar ? scalarValue(g) : null;
  // A decimal's value is known to its digits only: adding 1 to 6.02·10²³ is inside any numeric tolerance.
  const additive = !(v !== null && Math.abs(v) >= 1e9 && /\d\.\d/.test(g));

  if (scalar) {
    if (v === null || v !== 0) add('sign_flip', `-\\left(${g}\\right)`);
    if (additive) add('off_by_one_value', `${g}+1`);
    if (additive) add('off_by_one_value_down', `${g}-1`);
    if (v === null || v !== 0) add('doubled', `2\\left(${g}\\right)`);
    if (v === null || v !== 0) add('halved', `\\frac{${g}}{2}`);
    if (additive) add('off_by_ten', `${g}+10`);
    if (v !== null && v !== 0 && Math.abs(v) !== 1) add('reciprocal', `\\frac{1}{${g}}`);
    if (v !== null && v !== 0 && v !== 1) add('squared', `\\left(${g}\\right)^{2}`);
    if (v !== null && v > 0 && v !== 1) add('square_root', `\\sqrt{${g}}`);
    if (v !== null && v !== 0 && Math.abs(v) !== 1) add('cubed', `\\left(${g}\\right)^{3}`);
    if (v !== null && v !== 0 && Number.isFinite(v)) add('times_pi', `\\left(${g}\\right)\\pi`);
    if (additive) add('plus_half', `${g}+\\frac{1}{2}`);
    // `\mathrm{e}` / `\mathrm{i}` / `\mathrm{d}` glued to the value are constants or operators, not units.
    if (v === null || v !== 0) add('times_e', `${g}\\mathrm{e}`);
    if (v === null || v !== 0) add('times_i', `${g}\\,\\mathrm{i}`);
    if (v === null || v !== 0) add('times_d', `${g}\\,\\mathrm{d}`);
    // A percent of ten times the value (`40` vs `400\%`): wrong whether `\%` divides by 100 or is a unit mark.
    if (v !== null && v !== 0 && /^-?\d+$/.test(g)) add('percent_tenfold', `${BigInt(g) * 10n}\\%`);
    if (v !== null && v !== 0 && /\\pi/.test(g)) {
      const deg = (v * 180) / Math.PI;
      if (Math.abs(deg - Math.round(deg)) < 1e-9) add('radians_as_degrees', `${Math.round(deg)}^\\circ`);
    }
  }

  // Literal changes anywhere (lists, tuples, relations, matrices included): up to 6 literals, ±1.
  const lits = integerLiterals(g);
  lits.slice(0, 6).forEach((l, i) => {
    const n = BigInt(l.text);
    add(`off_by_one_literal_${i}`, replaceAt(g, l.at, l.text.length, String(n + 1n)));
    if (n >= 2n) add(`off_by_one_literal_${i}_down`, replaceAt(g, l.at, l.text.length, String(n - 1n)));
  });
  const firstLit = lits[0];
  if (firstLit !== undefined && BigInt(firstLit.text) !== 0n) add('digit_appended', replaceAt(g, firstLit.at, firstLit.text.length, `${firstLit.text}0`));
  const last = lits[lits.length - 1];
  if (last !== undefined && lits.length > 6) add('off_by_one_literal_last', replaceAt(g, last.at, last.text.length, String(BigInt(last.text) + 1n)));

  // A decimal's last digit (≤ 5 places, so the 6-decimal rounding rule cannot hide it).
  const dec = [...g.matchAll(/(?<![\d.])(\d+)\.(\d{1,5})(?![\d.])/g)].find((m) => mutableDigits(g)[m.index]);
  if (dec !== undefined) {
    const digits = dec[2] ?? '';
    const lastDigit = Number(digits[digits.length - 1]);
    const bumped = `${dec[1]}.${digits.slice(0, -1)}${(lastDigit + 1) % 10}`;
    if (lastDigit !== 9) add('decimal_last_digit', replaceAt(g, dec.index, dec[0].length, bumped));
  }

  // Exponent changed: `^{k}` / `^k` → k+1 (skipped when the base is 0 or 1).
  const exp = /(?<![01]\s*)\^\s*(\{\s*(-?\d+)\s*\}|(\d))/.exec(g);
  if (exp !== null && mutableDigits(g)[exp.index]) {
    const k = Number(exp[2] ?? exp[3]);
    add('exponent_changed', replaceAt(g, exp.index, exp[0].length, `^{${k + 1}}`));
  }

  // π vs π/2.
  const pi = g.indexOf('\\pi');
  if (pi >= 0 && !/^[a-zA-Z]/.test(g.slice(pi + 3))) add('pi_vs_half_pi', replaceAt(g, pi, 3, '\\frac{\\pi}{2}'));

  // A fraction inverted (skipped when numerator and denominator are equal up to sign).
  const frac = /\\[dt]?frac\s*\{([^{}]+)\}\s*\{([^{}]+)\}/.exec(g);
  if (frac !== null) {
    const [a = '', b = ''] = [frac[1], frac[2]];
    const va = scalarValue(a);
    const vb = scalarValue(b);
    const same = a.replace(/[\s-]/g, '') === b.replace(/[\s-]/g, '') || (va !== null && vb !== null && Math.abs(Math.abs(va) - Math.abs(vb)) < 1e-12);
    if (!same) add('fraction_inverted', replaceAt(g, frac.index, frac[0].length, `\\frac{${b}}{${a}}`));
  }
  const slash = /(?<![\d.])(\d+)\s*\/\s*(\d+)(?![\d.])/.exec(g);
  if (slash !== null && slash[1] !== slash[2] && mutableDigits(g)[slash.index]) {
    add('fraction_inverted_slash', replaceAt(g, slash.index, slash[0].length, `${slash[2]}/${slash[1]}`));
  }

  // A root dropped: `\sqrt{a}` → `a` (skipped for 0 and 1).
  const root = /\\sqrt\s*\{([^{}]+)\}/.exec(g);
  if (root !== null && !/^\s*[01]\s*$/.test(root[1] ?? '')) add('root_dropped', replaceAt(g, root.index, root[0].length, `{${root[1]}}`));

  // Lists, tuples, intervals, sets.
  const parts = listParts(g);
  if (parts !== null) {
    const { open, close, items } = parts;
    const distinct = (x: string, y: string) => {
      if (x.replace(/\s+/g, '') === y.replace(/\s+/g, '')) return false;
      const vx = scalarValue(x);
      const vy = scalarValue(y);
      return !(vx !== null && vy !== null && Math.abs(vx - vy) < 1e-12);
    };
    const ordered = open === '(' || open === '[' || open === '\\left(' || open === '\\left[';
    if (ordered && items.length >= 2 && distinct(items[0] ?? '', items[1] ?? '')) {
      add('tuple_swapped', `${open}${[items[1], items[0], ...items.slice(2)].join(', ')}${close}`);
    }
    const uniqueItems = items.filter((x, i) => items.findIndex((y) => !distinct(x, y)) === i);
    if (uniqueItems.length >= 2 && uniqueItems.length === items.length) add('item_dropped', `${open}${items.slice(0, -1).join(', ')}${close}`);
    const first = items[0] ?? '';
    const fv = scalarValue(first);
    const flipped = `-\\left(${first}\\right)`;
    if (
      isScalar(first) &&
      fv !== null &&
      fv !== 0 &&
      !items.slice(1).some((x) => {
        const xv = scalarValue(x);
        return xv !== null && Math.abs(xv + fv) < 1e-12;
      })
    ) {
      add('item_sign_flip', `${open}${[flipped, ...items.slice(1)].join(', ')}${close}`);
    }
  }

  // A relation's right-hand side changed: `x = 5` → `x = 6` is covered by literals; flip the sign too.
  const rel = /^([A-Za-z](?:_\{?\w+\}?)?)\s*=\s*([^=<>]+)$/.exec(g);
  if (rel !== null && isScalar(rel[2] ?? '')) {
    const rv = scalarValue(rel[2] ?? '');
    if (rv === null || rv !== 0) add('relation_sign_flip', `${rel[1]} = -\\left(${rel[2]}\\right)`);
  }
  return out;
}
