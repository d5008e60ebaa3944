/**
 * The verdict rule of `judgeReward`: the verdict is the judge's final answer, after its reasoning.
 *
 * Hazard guarded: reading the first `{` of a reply. A judge that reasons before answering quotes the policy (`the
 * response says {"score": 1} but …`) or writes braces of its own (`\boxed{4}`, a JSON example); the first object is
 * then the policy's claim (reward hacking: the policy learns to write score-shaped text) or not JSON at all (the
 * sample is dropped for nothing).
 */
import { z } from '../../util/zod.js';
import { answerPart } from '../ending.js';
import type { JudgeFailureReason } from '../../errors/judge-errors.js';
import { jsonObjectEnd } from '../../chat/json-object-end.js';

/** What a single judgement must parse to. */
export const singleVerdictSchema = z.object({ explanation: z.string().optional(), score: z.number().min(0).max(1) });

/** What a group judgement must parse to: one score per trajectory id. */
export const groupVerdictSchema = z.object({
  scores: z.array(z.object({ id: z.union([z.string(), z.number()]).transform(String), explanation: z.string().optional(), score: z.number().min(0).max(1) })),
});

/** A parsed verdict, or why there is none (`reason` sorts the failure; `problem` is fed back to the judge on retry). */
export type VerdictResult<T> = { ok: true; value: T } | { ok: false; reason: Extract<JudgeFailureReason, 'no_verdict' | 'invalid_verdict'>; problem: string };

/** Characters scanned over all candidate objects of one reply, per character of the reply (bounds hostile brace runs). */
const SCAN_BUDGET_PER_CHAR = 64;
const SCAN_BUDGET_MIN = 1 << 22;

/**
 * Every top-level JSON object of `text`, left to right: at each `{`, the object it opens when that parses (the scan
 * then continues after it, so objects nested in a parsed one are not listed); otherwise the scan moves to the next
 * `{` (so `\boxed{4}`, `{x | x > 0}` or a half-written object are skipped, and a verdict after them is still found).
 * @returns the objects, or `null` when the text has so many unclosed `{` that scanning it would pass
 *   `max(4 Mi, 64 × length)` character steps (the objects found so far may not include the last one).
 */
export function jsonObjects(text: string): { start: number; value: Record<string, unknown> }[] | null {
  const out: { start: number; value: Record<string, unknown> }[] = [];
  const budget = { left: Math.max(SCAN_BUDGET_MIN, SCAN_BUDGET_PER_CHAR * text.length) };
  let i = text.indexOf('{');
  while (i >= 0 && budget.left >= 0) {
    const end = jsonObjectEnd(text, i, budget);
    let next = i + 1;
    if (end > 0) {
      budget.left -= end - i; // JSON.parse reads the slice again
      try {
        const v: unknown = JSON.parse(text.slice(i, end));
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
          out.push({ start: i, value: v as Record<string, unknown> });
          next = end;
        }
      } catch {
        // not JSON (a LaTeX group, a set, a template with placeholders): look inside it
      }
    }
    i = text.indexOf('{', next);
  }
  return budget.left >= 0 ? out : null;
}

/**
 * The judge's final answer: the reply without its reasoning, by the rule the built-in rewards apply to the policy
 * (`answerPart` in `src/reward/ending.ts`): the text after the last `</think>`, or a harmony reply's `final` channel.
 * @returns `null` when the reply is reasoning only (a `<think>` left open, a harmony reply with no `final` channel).
 */
export function finalAnswer(reply: string): string | null {
  return answerPart(reply);
}

/**
 * Parses the judge's verdict from `reply`: reasoning blocks are removed ({@link finalAnswer}), then the **last**
 * top-level JSON object that carries `key` (`score` for a single judgement, `scores` for a group) is the verdict, and
 * it must fit `schema` as it stands — an out-of-range or malformed last verdict is a failure, never a fall-back to an
 * earlier object (which may be the policy's text the judge quoted). Text around the object (``` fences, a closing
 * sentence) and objects without `key` (JSON examples, `\boxed{…}`) are ignored.
 * @returns the value, or the failure (`no_verdict` / `invalid_verdict`) with the problem in words.
 */
export function parseVerdict<T>(reply: string, schema: z.ZodType<T>, key: 'score' | 'scores'): VerdictResult<T> {
  const answer = finalAnswer(reply);
  if (answer === null)
    return { ok: false, reason: 'no_verdict', problem: 'the reply is reasoning only (it ends inside its reasoning block); end it with the JSON verdict' };
  const objects = jsonObjects(answer);
  if (objects === null) return { ok: false, reason: 'no_verdict', problem: 'the reply has too many unclosed braces to find its verdict' };
  const candidates = objects.filter((o) => Object.hasOwn(o.value, key));
  const last = candidates[candidates.length - 1];
  if (!last) return { ok: false, reason: 'no_verdict', problem: `the reply holds no complete JSON object with a "${key}" key after its reasoning` };
  const r = schema.safeParse(last.value);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, reason: 'invalid_verdict', problem: r.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ') };
}
