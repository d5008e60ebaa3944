import { ConfigError, DatumShapeError, PromptPrefixError } from '../errors/index.js';
import type { Datum } from '../types/datum.js';
import type { BuildDatumOptions, BuildDatumsOptions, DatumBatch, DatumSource, DatumTurn } from './types.js';
import { DEFAULT_PREFIX_MISMATCH, PREFIX_MISMATCH_POLICIES } from '../types/prefix-mismatch.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const BUILD_DATUMS_OPTIONS = optionKeys<BuildDatumsOptions>({ onPrefixMismatch: true, skipZeroAdvantage: true, maxTokens: true });

/** Unshifted per-token sequence under construction (one entry per token of `full`). */
interface Segment {
  readonly full: number[];
  readonly logprobs: number[];
  readonly advantages: number[];
  readonly mask: number[];
}

const newSegment = (): Segment => ({ full: [], logprobs: [], advantages: [], mask: [] });

/** Index of the first position where `prompt` stops extending `full`, or -1 when it extends it. */
function firstMismatch(full: readonly number[], prompt: readonly number[]): number {
  const n = Math.min(full.length, prompt.length);
  for (let i = 0; i < n; i++) if (full[i] !== prompt[i]) return i;
  return prompt.length < full.length ? prompt.length : -1;
}

function checkTurn(turn: DatumTurn, index: number): void {
  if (turn.logprobs.length !== turn.completionTokens.length) {
    throw new DatumShapeError('logprobs', `turn ${index} has ${turn.logprobs.length} logprobs for ${turn.completionTokens.length} completion tokens`);
  }
}

function appendTurn(seg: Segment, delta: readonly number[], turn: DatumTurn, advantage: number): void {
  for (const t of delta) {
    seg.full.push(t);
    seg.logprobs.push(0);
    seg.advantages.push(0);
    seg.mask.push(0);
  }
  turn.completionTokens.forEach((t, i) => {
    seg.full.push(t);
    seg.logprobs.push(turn.logprobs[i] as number);
    seg.advantages.push(advantage);
    seg.mask.push(1);
  });
}

/** Right shift: position t reads `full[0..t]` and predicts `full[t+1]`; per-token arrays drop their first entry. */
function shiftSegment(seg: Segment, maxTokens: number | undefined): Datum {
  const T = Math.min(seg.full.length - 1, maxTokens ?? Number.POSITIVE_INFINITY);
  return {
    modelInput: seg.full.slice(0, T),
    targetTokens: seg.full.slice(1, T + 1),
    logprobs: seg.logprobs.slice(1, T + 1),
    advantages: seg.advantages.slice(1, T + 1),
    mask: seg.mask.slice(1, T + 1),
  };
}

function checkMaxTokens(maxTokens: number | undefined): void {
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens >= 1)) {
    throw new ConfigError('datum options', [{ path: 'maxTokens', message: `expected an integer ≥ 1, got ${maxTokens}` }]);
  }
}

/** Merges turns by prefix extension into one or more unshifted segments. */
function mergeTurns(source: DatumSource, advantage: number, policy: 'fail' | 'split'): Segment[] {
  if (source.turns.length === 0) throw new DatumShapeError('turns', 'trajectory has no turns');
  if (!Number.isFinite(advantage)) throw new DatumShapeError('advantages', `advantage is not finite (${advantage})`);
  const segments: Segment[] = [];
  let seg = newSegment();
  source.turns.forEach((turn, k) => {
    checkTurn(turn, k);
    let delta: readonly number[];
    if (k === 0) {
      delta = turn.promptTokens;
    } else if (turn.newDatum) {
      // a conversation of its own (agentEnvironment): a new datum whatever the policy
      segments.push(seg);
      seg = newSegment();
      delta = turn.promptTokens;
    } else {
      const at = firstMismatch(seg.full, turn.promptTokens);
      if (at === -1) {
        delta = turn.promptTokens.slice(seg.full.length);
      } else if (policy === 'fail') {
        throw new PromptPrefixError(`turn ${k}: prompt does not extend the ${seg.full.length} tokens accumulated so far (first difference at token ${at})`, {
          position: at,
        });
      } else {
        segments.push(seg);
        seg = newSegment();
        delta = turn.promptTokens;
      }
    }
    if (seg.full.length === 0 && delta.length === 0) {
      throw new DatumShapeError('promptTokens', `turn ${k} starts a datum with an empty prompt`);
    }
    appendTurn(seg, delta, turn, advantage);
  });
  segments.push(seg);
  return segments;
}

/**
 * Merges one trajectory's turns into a single right-shifted {@link Datum} (KMnO4-zx/agentic-rl-lab `05-retool/train.py` `build_datum`,
 * tinker-cookbook `trajectory_to_data`).
 *
 * `full = prompt₀ ++ completion₀ ++ delta₁ ++ completion₁ ++ …`, where `deltaₖ` is the part of turn k's prompt
 * beyond the tokens so far (assistant end token, tool observation, next assistant header). Then
 * `modelInput = full[:-1]`, `targetTokens = full[1:]`, and logprobs/advantages/mask are shifted the same way.
 * Sampled positions get the sampling logprob, `advantage` and mask 1; prompt and observation positions get
 * logprob 0, advantage 0 and mask 0 (the interpreter-feedback mask). `weights` is left unset (defaults to `mask`).
 *
 * @param trajectory - only `turns[k].promptTokens / completionTokens / logprobs` are read.
 * @param advantage - the trajectory's advantage (from `groupAdvantages`), applied to every sampled token.
 * @param opts.maxTokens - cut every array to at most this many positions.
 * @returns a datum of length `min(len(full) − 1, maxTokens)`.
 * @throws PromptPrefixError when turn k > 0's prompt does not extend the tokens accumulated so far.
 * @throws DatumShapeError (`turns`, `logprobs`, `promptTokens`, `advantages`, `modelInput`) on no turns, a logprob
 *   count that differs from the completion length, an empty first prompt, a non-finite advantage, or fewer than 2 tokens.
 * @throws ConfigError when `maxTokens` is not an integer ≥ 1.
 */
export function buildDatum(trajectory: DatumSource, advantage: number, opts: BuildDatumOptions = {}): Datum {
  checkMaxTokens(opts.maxTokens);
  const segments = mergeTurns(trajectory, advantage, 'fail');
  if (segments.length > 1)
    throw new DatumShapeError('turns', `trajectory has ${segments.length} separate conversations (turns marked newDatum); build them with buildDatums`);
  const seg = segments[0] as Segment;
  if (seg.full.length < 2) {
    throw new DatumShapeError('modelInput', `trajectory has ${seg.full.length} token(s); a datum needs at least 2`);
  }
  return shiftSegment(seg, opts.maxTokens);
}

/**
 * Builds the datums of a batch: {@link buildDatum} per trajectory, under the `onPrefixMismatch` policy for a turn
 * whose prompt does not extend the previous tokens: `'drop'` (default) leaves that trajectory out and lists it in
 * `dropped`, `'split'` starts a new datum at each such turn (tinker-cookbook behaviour), `'fail'` throws. A turn
 * marked `newDatum` (a separate conversation of the same trajectory, agentEnvironment) starts a new datum under every
 * policy. A split segment whose merged sequence has fewer than 2 tokens yields no datum.
 *
 * @param trajectories - the batch, any order.
 * @param advantages - one advantage per trajectory, same order.
 * @param opts - see {@link BuildDatumsOptions}.
 * @returns the datums, per datum the index of its trajectory, and the trajectories dropped for a prefix mismatch.
 * @throws PromptPrefixError under `onPrefixMismatch: 'fail'`.
 * @throws ConfigError for an unknown `onPrefixMismatch` or a bad `maxTokens`.
 * @throws DatumShapeError (`advantages`) when the two arrays differ in length; otherwise as {@link buildDatum}.
 */
export function buildDatums(trajectories: readonly DatumSource[], advantages: readonly number[], opts: BuildDatumsOptions = {}): DatumBatch {
  checkOptions('buildDatums options', BUILD_DATUMS_OPTIONS, opts);
  checkMaxTokens(opts.maxTokens);
  const policy = opts.onPrefixMismatch ?? DEFAULT_PREFIX_MISMATCH;
  if (!(PREFIX_MISMATCH_POLICIES as readonly unknown[]).includes(policy)) {
    const hint = (policy as unknown) === 'throw' ? " ('throw' is now 'fail')" : '';
    throw new ConfigError('datum options', [{ path: 'onPrefixMismatch', message: `expected 'drop' | 'split' | 'fail', got ${JSON.stringify(policy)}${hint}` }]);
  }
  if (advantages.length !== trajectories.length) {
    throw new DatumShapeError('advantages', `${advantages.length} advantages for ${trajectories.length} trajectories`);
  }
  const datums: Datum[] = [];
  const trajectoryIndex: number[] = [];
  const dropped: { trajectoryIndex: number; message: string }[] = [];
  trajectories.forEach((trajectory, i) => {
    const advantage = advantages[i] as number;
    if (opts.skipZeroAdvantage && advantage === 0) return;
    let segments: Segment[];
    try {
      segments = mergeTurns(trajectory, advantage, policy === 'split' ? 'split' : 'fail');
    } catch (e) {
      if (policy !== 'drop' || !(e instanceof PromptPrefixError)) throw e;
      dropped.push({ trajectoryIndex: i, message: e.message });
      return;
    }
    for (const seg of segments) {
      if (seg.full.length < 2) continue;
      datums.push(shiftSegment(seg, opts.maxTokens));
      trajectoryIndex.push(i);
    }
  });
  return { datums, trajectoryIndex, dropped };
}
