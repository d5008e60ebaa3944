import type { Example } from '../types/example.js';
import type { RewardResult } from '../types/reward.js';
import type { Trajectory } from '../types/trajectory.js';
import type { SyncReward } from '../types/reward.js';
import { answerOf, unscoredResult, type EndingOptions } from './ending.js';
import { tagBlocks } from '../util/tag-blocks.js';
import { isBlankAnswer } from './math/extract-boxed.js';
import { optionLetter, sameOptionLetter } from './option-letter.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const EXACT_MATCH_OPTIONS = optionKeys<ExactMatchOptions>({ correct: true, wrong: true, scoreTruncated: true });

/**
 * SQuAD / Search-R1 answer normalisation (`qa_em.normalize_answer`): lower-case, drop punctuation and symbols
 * (Unicode `\p{P}` and `\p{S}`, a superset of Python's `string.punctuation`), drop the articles a / an / the,
 * collapse whitespace.
 * @example normalizeAnswer('The  Eiffel-Tower!') === 'eiffeltower'
 */
export function normalizeAnswer(s: string): string {
  return s
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, '')
    .replace(/(?<![\p{L}\p{N}_])(a|an|the)(?![\p{L}\p{N}_])/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Contents of the last `\boxed{…}` (balanced braces), or `undefined`. */
function lastBoxed(text: string): string | undefined {
  const start = text.lastIndexOf('\\boxed{');
  if (start === -1) return undefined;
  let depth = 0;
  for (let i = start + 6; i < text.length; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start + 7, i);
  }
  return undefined;
}

/**
 * The model's final answer in a reply: the last `<answer>…</answer>` block; else the last `\boxed{…}`; else
 * `undefined`. Search-R1 counts `<answer>` tags over prompt + response and so needs two; here only the response is
 * seen, so one suffices.
 */
export function extractTaggedAnswer(text: string): string | undefined {
  let last: string | undefined;
  for (const b of tagBlocks(text, '<answer>', '</answer>', { ignoreCase: true })) last = text.slice(b.contentStart, b.contentEnd);
  if (last !== undefined) return last.trim();
  const boxed = lastBoxed(text);
  return boxed === undefined ? undefined : boxed.trim();
}

/** Gold answers of an example: `example.answer` plus the strings in `example.meta.aliases`, if any. */
export function goldAliases(example: Example): string[] {
  const aliases = example.meta?.['aliases'];
  const extra = Array.isArray(aliases) ? aliases.filter((a): a is string => typeof a === 'string') : [];
  return [example.answer, ...extra];
}

/** Options of {@link exactMatch}. */
export interface ExactMatchOptions extends EndingOptions {
  /** Reward of a correct answer. @default 1 */
  readonly correct?: number;
  /** Reward of anything else. @default 0 */
  readonly wrong?: number;
}

/**
 * Normalised exact match (Search-R1 `qa_em`): correct when the {@link normalizeAnswer}-ed final answer equals any
 * normalised gold alias ({@link goldAliases}), or, for a multiple-choice letter alias (`B`, `(B)`), when it names that
 * letter alone or with its option text (`B) 12`; two letters never match — see `optionLetter`). The final answer is {@link extractTaggedAnswer} of
 * the answer part of `trajectory.finalText` (text after the last `</think>`); when it has neither `<answer>` nor
 * `\boxed{}`, that whole answer part is scored and `validFormat` is false. Only a trajectory that ended validly is
 * scored (the shared rule, {@link answerOf}): `invalid` → `wrong` (`invalid_format`), cut by a token budget →
 * `wrong` (`truncated`, unless `scoreTruncated`), no answer or an unfinished `<think>` → `wrong` (`no_answer`),
 * all with `validFormat: false`. An empty or blank answer (`<answer></answer>`, `\boxed{}`, `\boxed{\,}`) scores `wrong` (`no_answer`, `validFormat: false`). When every gold alias normalises to `''` the
 * sample is dropped (`gold_unparseable`, `drop: true`), never rewarded.
 */
export function exactMatch(opts: ExactMatchOptions = {}): SyncReward {
  checkOptions('exactMatch options', EXACT_MATCH_OPTIONS, opts, { optional: true });
  const correct = opts.correct ?? 1;
  const wrong = opts.wrong ?? 0;
  return (trajectory: Trajectory, example: Example): RewardResult => {
    const golds = goldAliases(example)
      .map(normalizeAnswer)
      .filter((g) => g !== '');
    // An option letter is a gold answer even where normalising empties it (`A`, `(A)`: SQuAD's rule drops the article `a`).
    const letterGold = goldAliases(example).some((g) => optionLetter(g, 'gold') !== null);
    if (golds.length === 0 && !letterGold) return { reward: wrong, correct: false, validFormat: false, failure: 'gold_unparseable', drop: true };
    const ending = answerOf(trajectory, opts);
    if (!ending.scorable) return unscoredResult(ending, wrong);
    const tagged = extractTaggedAnswer(ending.text);
    const answer = tagged ?? ending.text.trim();
    const pred = normalizeAnswer(answer);
    // An empty `<answer></answer>` or `\boxed{}` is no answer, not a well-formed one (the format rate must not reward it).
    const letterOk = goldAliases(example).some((g) => sameOptionLetter(g, answer) === true);
    if ((pred === '' && !letterOk) || (tagged !== undefined && isBlankAnswer(tagged)))
      return { reward: wrong, correct: false, validFormat: false, answer, failure: 'no_answer' };
    const validFormat = tagged !== undefined;
    const ok = golds.includes(pred) || letterOk;
    return { reward: ok ? correct : wrong, correct: ok, validFormat, answer };
  };
}
