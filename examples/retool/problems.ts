/**
 * Arithmetic word problems whose answers need exact multi-digit computation, written as
 * DAPO-Math rows (`prompt[0].content` wrapped in the DAPO answer template, `reward_model.ground_truth`),
 * so they go through the same `prepare-data` path as the real DAPO-Math-17k.
 * Deterministic for a given seed.
 */
import { mulberry32 } from 'agentrl';

export interface WordProblem {
  readonly question: string;
  /** A Python expression that computes the answer from the numbers in the question. */
  readonly expression: string;
  readonly answer: string;
}

type Gen = (r: () => number) => WordProblem;
const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

const TEMPLATES: Gen[] = [
  (r) => {
    const a = int(r, 12, 99), b = int(r, 120, 999);
    return { question: `A farm has ${a} rows of ${b} trees. How many trees are there?`, expression: `${a}*${b}`, answer: String(a * b) };
  },
  (r) => {
    const a = int(r, 11, 89), b = int(r, 11, 89), c = int(r, 13, 97);
    return { question: `A shop sold ${a} lamps on Monday and ${b} on Tuesday at ${c} dollars each. What was the revenue?`, expression: `(${a}+${b})*${c}`, answer: String((a + b) * c) };
  },
  (r) => {
    const a = int(r, 1200, 9800), b = int(r, 13, 97);
    return { question: `A truck carries ${b} boxes of ${a} grams each. How many grams in total?`, expression: `${b}*${a}`, answer: String(a * b) };
  },
  (r) => {
    const b = int(r, 12, 60), q = int(r, 120, 999);
    return { question: `${b * q} coins are shared equally by ${b} people. How many coins does each get?`, expression: `${b * q}//${b}`, answer: String(q) };
  },
  (r) => {
    const a = int(r, 101, 999), b = int(r, 101, 999), c = int(r, 11, 99);
    return { question: `What is ${a} times ${b} minus ${c}?`, expression: `${a}*${b}-${c}`, answer: String(a * b - c) };
  },
  (r) => {
    const a = int(r, 23, 97), b = int(r, 23, 97), c = int(r, 23, 97);
    return { question: `A box is ${a} by ${b} by ${c} cm. What is its volume in cubic cm?`, expression: `${a}*${b}*${c}`, answer: String(a * b * c) };
  },
];

/** The DAPO-Math answer template the real dataset wraps every problem in. */
export function wrapDapo(question: string): string {
  return (
    'Solve the following math problem step by step. The last line of your response should be of the form Answer: $Answer (without quotes) where $Answer is the answer to the problem.\n\n' +
    question +
    '\n\nRemember to put your answer on its own line after "Answer:".'
  );
}

/** `count` problems from `seed`. */
export function generateProblems(count: number, seed: number): WordProblem[] {
  const r = mulberry32(seed);
  return Array.from({ length: count }, () => TEMPLATES[Math.floor(r() * TEMPLATES.length)]!(r));
}

/** `count` DAPO-Math rows from `seed` (ids `${prefix}-${i}`). */
export function generateDapoRows(count: number, seed: number, prefix = 'arith'): Record<string, unknown>[] {
  return generateProblems(count, seed).map((p, i) => ({
    data_source: 'agentrl-arith',
    prompt: [{ role: 'user', content: wrapDapo(p.question) }],
    ability: 'MATH',
    reward_model: { style: 'rule-lighteval/MATH_v2', ground_truth: p.answer },
    extra_info: { index: `${prefix}-${i}`, expression: p.expression },
  }));
}
