import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { Example } from '../../types/example.js';
import type { Message } from '../../types/message.js';
import type { RewardResult } from '../../types/reward.js';
import type { Trajectory } from '../../types/trajectory.js';
import { ConfigError, type ConfigIssue } from '../../errors/config-error.js';
import { answerOf, unscoredResult } from '../ending.js';
import type { GroupReward, Reward } from '../../types/reward.js';
import { AgentRLError } from '../../errors/base.js';
import { JudgeError, type JudgeFailureReason } from '../../errors/judge-errors.js';
import { complete, judgeId, type Judge } from './judge-client.js';
import { formatTrajectory, groupMessages, retryMessages, singleMessages } from './judge-prompt.js';
import { finalAnswer, groupVerdictSchema, parseVerdict, singleVerdictSchema } from './judge-verdict.js';
import { checkOptions, optionKeys } from '../../util/check-options.js';
import { InternalError } from '../../errors/internal-error.js';

const JUDGE_REWARD_OPTIONS = optionKeys<JudgeRewardOptions>({
  judge: true,
  rubric: true,
  mode: true,
  retries: true,
  timeoutMs: true,
  maxTokens: true,
  temperature: true,
  normalize: true,
  correctThreshold: true,
  format: true,
  cache: true,
});

/** Options of {@link judgeReward}. */
export interface JudgeRewardOptions<E extends Example = Example> {
  /** The judge model: `{ sampler, renderer }` (any `SamplingClient`) or `{ baseURL, model, apiKey? }` (OpenAI-compatible). */
  readonly judge: Judge;
  /** What a good trajectory is, in words the judge reads (e.g. "Correct, uses the tools only when needed, concise"). */
  readonly rubric: string;
  /**
   * - `'group'`: one call per group ranks its trajectories relative to each other (RULER-style), scores in [0, 1];
   * - `'single'`: one call per trajectory scores it alone, in [0, 1].
   */
  readonly mode: 'group' | 'single';
  /**
   * Calls after the first when the judge's reply holds no usable verdict (the problem is fed back) or the call fails
   * for a reason that may pass (no answer in time, 5xx, 429). A call refused for good (a redirect, an answer over
   * `maxResponseBytes`, another 4xx, control tokens in the prompt) is not repeated. @default 2
   */
  readonly retries?: number;
  /** Deadline of one whole judgement (all attempts), in ms; past it the judgement fails. @default 60000 */
  readonly timeoutMs?: number;
  /** Tokens of one judge reply. @default 512 */
  readonly maxTokens?: number;
  /** Judge sampling temperature. @default 0 */
  readonly temperature?: number;
  /** Group mode: `'minmax'` rescales a group's scores to span [0, 1] (equal scores become 0); `'none'` keeps them. @default 'minmax' */
  readonly normalize?: 'minmax' | 'none';
  /** Single mode: `correct` is `score ≥ correctThreshold`. @default 0.5 */
  readonly correctThreshold?: number;
  /**
   * How a trajectory is shown to the judge; what it returns is XML-escaped into its own section of the prompt (and,
   * for a sampler judge, sanitised against the judge's special tokens). @default every assistant turn and tool answer,
   * cut to 6000 characters
   */
  readonly format?: (trajectory: Trajectory, example: E) => string;
  /** Cache judgements by content hash (judge, mode, rubric, task, shown trajectories) for the reward's lifetime. @default true */
  readonly cache?: boolean;
}

/** Counters of a {@link JudgeReward}. */
export interface JudgeStats {
  /** Judge calls made (attempts included). */
  readonly calls: number;
  /** Judgements answered from the cache. */
  readonly cacheHits: number;
  /** Attempts repeated because a reply did not parse or a call failed. */
  readonly retries: number;
  /** Judgements that failed after every attempt (their samples were dropped). */
  readonly failures: number;
  /** Replies whose final answer held no verdict (no JSON object with `score` / `scores` after the reasoning). */
  readonly missingVerdicts: number;
  /** Replies whose last verdict did not fit the schema (a score outside [0, 1], wrong or missing ids). */
  readonly invalidVerdicts: number;
}

/** What {@link judgeReward} returns: spread it into the Trainer options (`{ ...judge, … }`). */
export interface JudgeReward<E extends Example = Example> {
  /** Per-trajectory reward: in pointwise mode the judge's score; in group mode 0 for a trajectory that ended validly (the judge's scores come from `groupReward`). */
  readonly reward: Reward<E>;
  /** Set in group mode: the judge's scores, added to `reward`'s 0 for each trajectory that ended validly. */
  readonly groupReward?: GroupReward<E>;
  /** The judge's counters so far (calls, cache hits, retries, failures). */
  stats(): JudgeStats;
}

const MAX_CACHE_ENTRIES = 10_000;

function validate(o: JudgeRewardOptions<never>): void {
  const issues: ConfigIssue[] = [];
  const j = o?.judge as unknown as Record<string, unknown> | undefined;
  if (!j || typeof j !== 'object' || !(('sampler' in j && 'renderer' in j) || ('baseURL' in j && typeof j.model === 'string'))) {
    issues.push({ path: 'judge', message: 'expected { sampler, renderer } or { baseURL, model, apiKey? }' });
  }
  if (typeof o?.rubric !== 'string' || o.rubric.trim() === '') issues.push({ path: 'rubric', message: 'expected a non-empty string' });
  if (o?.mode !== 'group' && o?.mode !== 'single') issues.push({ path: 'mode', message: `expected 'group' or 'single', got ${JSON.stringify(o?.mode)}` });
  const int = (path: keyof JudgeRewardOptions, min: number) => {
    const v = o?.[path];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min))
      issues.push({ path, message: `expected an integer ≥ ${min}, got ${String(v)}` });
  };
  int('retries', 0);
  int('timeoutMs', 1);
  int('maxTokens', 1);
  if (j && typeof j === 'object' && 'baseURL' in j) {
    for (const k of ['maxResponseBytes', 'timeoutMs'] as const) {
      const v = j[k];
      if (v !== undefined && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1))
        issues.push({ path: `judge.${k}`, message: `expected an integer ≥ 1, got ${String(v)}` });
    }
  }
  if (o?.normalize !== undefined && o.normalize !== 'minmax' && o.normalize !== 'none')
    issues.push({ path: 'normalize', message: `expected 'minmax' or 'none'` });
  if (issues.length) throw new ConfigError('judgeReward options', issues);
}

/** Rescales `xs` to span [0, 1]; all equal → all 0. */
function minMax(xs: readonly number[]): number[] {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return xs.map((x) => (hi > lo ? (x - lo) / (hi - lo) : 0));
}

/**
 * An LLM-judge reward for open-ended tasks (verifiers' judge rubrics, OpenPipe ART's RULER). The judge reads the
 * rubric, the task (`example.question`) and the trajectory (its assistant turns and tool answers, XML-escaped inside
 * their own tags, so the policy's text cannot close or forge a section), may reason, and ends its reply with a JSON
 * verdict parsed by a zod schema — `{ score }` alone, or `{ scores: [{ id, score }] }` for a whole group ranked
 * relative to each other. The verdict is the judge's final answer: reasoning blocks are removed as for the policy
 * (`<think>`, a harmony analysis channel) and the **last** JSON object with a `score` / `scores` key counts, as it
 * stands (an out-of-range last verdict is a failure, never a fall-back to an earlier, possibly quoted, one). A reply
 * without a usable verdict (or a failed call) is retried with the problem fed back, up to `retries` times, all within
 * `timeoutMs`. Judgements are cached by content hash. A judgement that still fails ({@link JudgeError}) drops its
 * samples (`failure: 'reward_error'`, counted in `reward/dropped` and {@link JudgeStats.failures}), never the run. A
 * trajectory that did not end validly (invalid, truncated, a budget) scores 0 and is not shown to the judge.
 * @example
 * const judge = judgeReward({ judge: { baseURL: 'http://127.0.0.1:8000/v1', model: 'agentrl/local' }, rubric: 'Correct and concise.', mode: 'group' });
 * new Trainer({ ...judge, env, backend, loss, dataset });   // reward + groupReward
 * @throws ConfigError for bad options.
 */
export function judgeReward<E extends Example = Example>(opts: JudgeRewardOptions<E>): JudgeReward<E> {
  checkOptions('judgeReward options', JUDGE_REWARD_OPTIONS, opts);
  validate(opts as JudgeRewardOptions<never>);
  const retries = opts.retries ?? 2;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const threshold = opts.correctThreshold ?? 0.5;
  const format = opts.format ?? ((t: Trajectory) => formatTrajectory(t, 6000));
  const cache = new Map<string, Promise<unknown>>();
  const stats = { calls: 0, cacheHits: 0, retries: 0, failures: 0, missingVerdicts: 0, invalidVerdicts: 0 };
  const idOfJudge = judgeId(opts.judge);

  /**
   * One judgement: the judge's verdict (the last one after its reasoning, see `parseVerdict`), checked by `check`,
   * retried with the problem fed back. A call that cannot succeed on retry (a refused redirect, an answer over the
   * size limit, an HTTP 4xx, control tokens in the prompt) ends it at once.
   * @throws JudgeError when no attempt gave a usable verdict.
   */
  async function judgement<T>(messages: Message[], schema: z.ZodType<T>, key: 'score' | 'scores', check: (v: T) => string | undefined): Promise<T> {
    const signal = AbortSignal.timeout(timeoutMs);
    let convo = messages;
    let problem = 'no attempt was made';
    let reason: JudgeFailureReason = 'timeout';
    let cause: unknown;
    let attempts = 0;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) stats.retries++;
      if (signal.aborted) break;
      stats.calls++;
      attempts++;
      let reply: string;
      try {
        reply = await complete(opts.judge, convo, { maxTokens: opts.maxTokens ?? 512, temperature: opts.temperature ?? 0, signal });
      } catch (e) {
        cause = e;
        if (signal.aborted) break;
        reason = JudgeError.isInstance(e) ? e.reason : 'call_failed';
        problem = e instanceof Error ? e.message : String(e);
        if (AgentRLError.isInstance(e) && !e.retryable) break;
        continue;
      }
      const parsed = parseVerdict(reply, schema, key);
      if (parsed.ok) {
        const bad = check(parsed.value);
        if (bad === undefined) return parsed.value;
        stats.invalidVerdicts++;
        reason = 'invalid_verdict';
        problem = bad;
      } else {
        if (parsed.reason === 'no_verdict') stats.missingVerdicts++;
        else stats.invalidVerdicts++;
        reason = parsed.reason;
        problem = parsed.problem;
      }
      cause = undefined;
      // The judge sees its own final answer again, without the reasoning (which may quote the judged text).
      convo = [...messages, ...retryMessages(finalAnswer(reply) ?? '(reasoning only)', problem)];
    }
    if (signal.aborted) {
      problem = `no judgement within ${timeoutMs} ms${reason === 'timeout' ? '' : ` (last problem: ${problem})`}`;
      reason = 'timeout';
    }
    throw new JudgeError(reason, attempts, problem, cause === undefined ? undefined : { cause });
  }

  /** `make()` once per content key (concurrent callers share it); failures are not cached. */
  function cached<T>(key: unknown[], make: () => Promise<T>): Promise<T> {
    if (opts.cache === false) return make();
    const k = createHash('sha256')
      .update(JSON.stringify([idOfJudge, opts.mode, opts.rubric, ...key]))
      .digest('hex');
    const hit = cache.get(k) as Promise<T> | undefined;
    if (hit) {
      stats.cacheHits++;
      return hit;
    }
    const p = make();
    cache.set(k, p);
    if (cache.size > MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    p.catch(() => cache.delete(k));
    return p;
  }

  const failed = (e: unknown): RewardResult => {
    stats.failures++;
    return {
      reward: 0,
      correct: false,
      validFormat: true,
      failure: 'reward_error',
      drop: true,
      cause: JudgeError.isInstance(e) ? e.message : `judge: ${e instanceof Error ? e.message : String(e)}`,
    };
  };

  if (opts.mode === 'single') {
    const reward: Reward<E> = async (t, example) => {
      const ending = answerOf(t);
      if (!ending.scorable) return unscoredResult(ending, 0);
      const shown = format(t, example);
      try {
        const v = await cached([example.question, shown], () =>
          judgement(singleMessages(opts.rubric, example.question, shown), singleVerdictSchema, 'score', () => undefined),
        );
        return { reward: v.score, correct: v.score >= threshold, validFormat: true, answer: t.finalText };
      } catch (e) {
        return failed(e);
      }
    };
    return { reward, stats: () => ({ ...stats }) };
  }

  // Group mode: the per-trajectory part only applies the ending rule; the group reward asks the judge.
  const reward: Reward<E> = (t) => {
    const ending = answerOf(t);
    return ending.scorable ? { reward: 0, correct: false, validFormat: true, answer: t.finalText } : unscoredResult(ending, 0);
  };
  const groupReward: GroupReward<E> = async ({ example, trajectories_G, rewards_G }) => {
    const judged = trajectories_G.flatMap((t, g) =>
      !rewards_G[g]!.drop && rewards_G[g]!.validFormat ? [{ g, id: String(g + 1), text: format(t, example) }] : [],
    );
    const out = trajectories_G.map(() => 0);
    if (judged.length === 0) return out;
    const ids = judged.map((j) => j.id);
    const check = (v: z.infer<typeof groupVerdictSchema>): string | undefined => {
      const got = v.scores.map((s) => s.id);
      const missing = ids.filter((id) => !got.includes(id));
      const extra = got.filter((id) => !ids.includes(id));
      if (missing.length || extra.length || got.length !== ids.length)
        return `expected exactly one score for each id ${ids.join(', ')}${missing.length ? `; missing ${missing.join(', ')}` : ''}${extra.length ? `; unknown or repeated ${extra.join(', ')}` : ''}`;
      return undefined;
    };
    try {
      const v = await cached([example.question, ...judged.map((j) => j.text)], () =>
        judgement(groupMessages(opts.rubric, example.question, judged), groupVerdictSchema, 'scores', check),
      );
      const raw = judged.map((j) => v.scores.find((s) => s.id === j.id)!.score);
      const scores = (opts.normalize ?? 'minmax') === 'minmax' ? minMax(raw) : raw;
      judged.forEach((j, k) => {
        out[j.g] = scores[k]!;
      });
      return out;
    } catch (e) {
      stats.failures += judged.length;
      // judgement() throws only JudgeError; anything else is agentrl's own bug in the group bookkeeping.
      throw JudgeError.isInstance(e) ? e : new InternalError(`judge: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  };
  return { reward, groupReward, stats: () => ({ ...stats }) };
}
