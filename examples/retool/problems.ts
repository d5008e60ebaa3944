/**
 * Arithmetic word problems whose answers need exact multi-digit computation, written as
 * DAPO-Math rows (`prompt[0].content` wrapped in the DAPO answer template, `reward_model.ground_truth`),
 * so they go through the same `prepare-data` path as the real DAPO-Math-17k.
 * Deterministic for a given seed.
 */
import { mulberry32 } from 'agentrl/internal';

export interface WordProblem {
  readonly question: string;
  /** A Python expression that computes the answer from the numbers in the question. */
  readonly expression: string;
  readonly answer: string;
}

type Gen = (r: () => number) => WordProblem;
const int = (r: () => number, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

/**
 * Each template states two 2-digit numbers in the order they are multiplied, so the code the model must write
 * (`print(a*b)`) copies them left to right. Each number is one token of the embedded tokenizer (digits are
 * paired), so a 2-layer model can learn to copy them from a cold start in minutes, while the product
 * (3–4 digits) is beyond its mental arithmetic.
 */
const mul =
  (text: (a: number, b: number) => string, aLo: number, aHi: number, bLo: number, bHi: number): Gen =>
  (r) => {
    const a = int(r, aLo, aHi),
      b = int(r, bLo, bHi);
    return { question: text(a, b), expression: `${a}*${b}`, answer: String(a * b) };
  };

const TEMPLATES: Gen[] = [
  mul((a, b) => `What is ${a} times ${b}?`, 12, 99, 12, 99),
  mul((a, b) => `A farm has ${a} rows of ${b} trees. How many trees are there?`, 12, 99, 12, 99),
  mul((a, b) => `A truck carries ${a} boxes of ${b} grams each. How many grams in total?`, 12, 99, 12, 99),
  mul((a, b) => `Each of ${a} shelves holds ${b} books. How many books are there?`, 12, 99, 12, 99),
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
