/**
 * Canonical forms for keeping an evaluation split disjoint from its training split. Two questions overlap when
 * they share any key:
 * - `text:` the question lower-cased with only letters and digits kept (the same question, reformatted);
 * - `nums:` the multiset of its numbers, sorted (the same numbers in any order or wording: `What is 12 times 34?`
 *   and `A farm has 34 rows of 12 trees…` are the same problem for a model that learns to copy numbers into code);
 *   only for questions with at least two numbers, so unrelated one-number questions do not collide.
 * Example-specific keys (e.g. the `(fact, country)` a lookup asks about) are added by the caller.
 */
export function canonicalKeys(question: string): string[] {
  const text =
    'text:' +
    question
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  const nums = (question.match(/\d+(?:\.\d+)?/g) ?? []).map((n) => String(Number(n))).sort();
  return nums.length >= 2 ? [text, 'nums:' + nums.join(',')] : [text];
}

/** Pairs (evalId, trainId) of examples that share a canonical key; empty when the splits are disjoint. */
export function overlappingPairs(
  train: readonly { id: string; question: string }[],
  evalSet: readonly { id: string; question: string }[],
  keys: (e: { id: string; question: string }) => string[] = (e) => canonicalKeys(e.question),
): [string, string][] {
  const byKey = new Map<string, string>();
  for (const e of train) for (const k of keys(e)) if (!byKey.has(k)) byKey.set(k, e.id);
  const out: [string, string][] = [];
  for (const e of evalSet) {
    const hit = keys(e)
      .map((k) => byKey.get(k))
      .find((x) => x !== undefined);
    if (hit !== undefined) out.push([e.id, hit]);
  }
  return out;
}
