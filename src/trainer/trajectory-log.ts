import { appendFile, mkdir, writeFile } from '../platform/fs.js';
import { join } from '../platform/path.js';
import type { Renderer } from '../chat/types.js';
import type { Message } from '../types/message.js';
import type { Trajectory } from '../types/trajectory.js';
import type { GroupEvent, TrajectoryEvent } from './events.js';

/** One piece of a recorded trajectory's token sequence: what the model saw or wrote, decoded. */
export interface TokenSegment {
  /** `prompt`: the opening prompt; `completion`: tokens the model sampled (trained on); `observation`: tool output and template scaffolding spliced in between turns. */
  readonly kind: 'prompt' | 'completion' | 'observation';
  /** Loss mask of every token in the segment: 1 on sampled tokens, 0 elsewhere. */
  readonly mask: 0 | 1;
  /** Decoded text of the segment (display only). */
  readonly text: string;
  /** Number of tokens. */
  readonly tokens: number;
}

/**
 * One line of `logDir/trajectories.jsonl`. The per-token advantage is `advantage` on every mask-1 token
 * and 0 elsewhere (GRPO assigns one advantage per trajectory: DeepSeekMath, arXiv 2402.03300, §4.1.2;
 * KMnO4-zx/agentic-rl-lab `05-retool/train.py` `build_datum`).
 */
export interface TrajectoryRecord {
  /** 1-based step number. */
  readonly step: number;
  /** The trajectory's id. */
  readonly id: string;
  /** Id of its example. */
  readonly exampleId: string;
  /** Branch index within the group, 0-based. */
  readonly groupIndex: number;
  /** The question as shown to the model. */
  readonly question: string;
  /** The gold answer. */
  readonly gold: string;
  /** Scalar reward. */
  readonly reward: number;
  /** Whether the reward judged it correct. */
  readonly correct: boolean;
  /** Whether an answer was found in the expected format. */
  readonly validFormat: boolean;
  /** The answer the reward extracted, if any. */
  readonly answer?: string;
  /** The reward failure, when no reward could be computed (see `RewardFailure`). */
  readonly failure?: string;
  /** Why the trajectory ended (a `TrajectoryStopReason`). */
  readonly stopReason: string;
  /** Tool calls executed. */
  readonly toolCalls: number;
  /** Assistant turns. */
  readonly turns: number;
  /** The group-centred advantage of this trajectory (`null` when its group was dropped or degenerate-skipped). */
  readonly advantage: number | null;
  /** Whether the trajectory's group was degenerate (all rewards equal). */
  readonly degenerate: boolean;
  /** The whole conversation. */
  readonly messages: readonly Message[];
  /** The token sequence in order, split where the loss mask changes. */
  readonly segments: readonly TokenSegment[];
}

/** How many trajectories per step {@link startTrajectoryLog} records. */
export interface TrajectoryLogOptions {
  /** Trajectories recorded per step (the best and worst of the first groups). 0 records none. @default 4 */
  readonly perStep: number;
}

interface Source {
  on(event: 'trajectory', fn: (e: TrajectoryEvent) => void): unknown;
  on(event: 'group', fn: (e: GroupEvent) => void): unknown;
  off(event: 'trajectory', fn: (e: TrajectoryEvent) => void): unknown;
  off(event: 'group', fn: (e: GroupEvent) => void): unknown;
}

/** Splits a trajectory's tokens into prompt, completion and observation segments (mask 1 on completions). */
export function trajectorySegments(trajectory: Trajectory, renderer: Pick<Renderer, 'decode'>): TokenSegment[] {
  const out: TokenSegment[] = [];
  const push = (kind: TokenSegment['kind'], tokens: readonly number[]) => {
    if (tokens.length === 0) return;
    out.push({ kind, mask: kind === 'completion' ? 1 : 0, text: renderer.decode(tokens), tokens: tokens.length });
  };
  let seen = 0;
  trajectory.turns.forEach((turn, k) => {
    push(k === 0 ? 'prompt' : 'observation', turn.promptTokens.slice(seen));
    push('completion', turn.completionTokens);
    seen = turn.promptTokens.length + turn.completionTokens.length;
  });
  return out;
}

/**
 * Records a sample of each step's trajectories to `logDir/trajectories.jsonl` by listening to a Trainer's
 * `trajectory` and `group` events: per group in arrival order, its best and its worst member, until
 * `perStep` are written for the step. Returns a function that detaches and waits for pending writes.
 */
export function startTrajectoryLog(source: Source, opts: { logDir: string; renderer: Pick<Renderer, 'decode'> } & TrajectoryLogOptions): () => Promise<void> {
  const path = join(opts.logDir, 'trajectories.jsonl');
  const pending = new Map<string, TrajectoryEvent[]>();
  const writtenPerStep = new Map<number, number>();
  let chain: Promise<unknown> = mkdir(opts.logDir, { recursive: true });
  const key = (step: number, exampleId: string) => `${step}\u0000${exampleId}`;
  const onTrajectory = (e: TrajectoryEvent) => {
    if (e.aborted) return; // an aborted step has no group event and is not part of the run's record
    const k = key(e.step, e.trajectory.example.id);
    const list = pending.get(k) ?? [];
    list.push(e);
    pending.set(k, list);
  };
  const onGroup = (g: GroupEvent) => {
    const k = key(g.step, g.exampleId);
    const members = pending.get(k) ?? [];
    pending.delete(k);
    const done = writtenPerStep.get(g.step) ?? 0;
    if (done >= opts.perStep || members.length === 0) return;
    const byReward = [...members].sort((a, b) => b.reward.reward - a.reward.reward);
    const chosen = [byReward[0]!, byReward[byReward.length - 1]!].filter((e, i, a) => a.indexOf(e) === i).slice(0, opts.perStep - done);
    writtenPerStep.set(g.step, done + chosen.length);
    const lines = chosen.map((e) => JSON.stringify(toRecord(e, g, opts.renderer)) + '\n').join('');
    chain = chain.then(() => appendFile(path, lines));
  };
  if (opts.perStep > 0) {
    source.on('trajectory', onTrajectory);
    source.on('group', onGroup);
  }
  return async () => {
    source.off('trajectory', onTrajectory);
    source.off('group', onGroup);
    await chain;
  };
}

function toRecord(e: TrajectoryEvent, g: GroupEvent, renderer: Pick<Renderer, 'decode'>): TrajectoryRecord {
  const t = e.trajectory;
  const advantage = g.advantages[t.groupIndex];
  return {
    step: e.step,
    id: t.id,
    exampleId: t.example.id,
    groupIndex: t.groupIndex,
    question: t.example.question,
    gold: t.example.answer,
    reward: e.reward.reward,
    correct: e.reward.correct,
    validFormat: e.reward.validFormat,
    ...(e.reward.answer === undefined ? {} : { answer: e.reward.answer }),
    ...(e.reward.failure === undefined ? {} : { failure: e.reward.failure }),
    stopReason: t.stopReason,
    toolCalls: t.toolCalls,
    turns: t.turns.length,
    advantage: advantage === undefined || e.reward.drop ? null : advantage,
    degenerate: g.degenerate,
    messages: t.messages,
    segments: trajectorySegments(t, renderer),
  };
}

/**
 * Writes `logDir/config.json`: the resolved options as JSON, with functions and objects that are not plain
 * data (backend, environment, reward, dataset) replaced by a short description.
 */
export async function writeRunConfig(logDir: string, options: Readonly<Record<string, unknown>>): Promise<void> {
  await mkdir(logDir, { recursive: true });
  await writeFile(join(logDir, 'config.json'), JSON.stringify(describeConfig(options), null, 2) + '\n');
}

/** The resolved options as plain JSON (what `config.json` holds and `MetricsSink.config` receives). */
export function describeConfig(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) {
    if (k === 'dataset' && Array.isArray(v)) out[k] = { examples: v.length };
    // The held-out set is summarised like the training set: its rows would make config.json the size of the dataset.
    else if (k === 'eval' && v !== null && typeof v === 'object' && Array.isArray((v as { dataset?: unknown }).dataset)) {
      out[k] = { ...(v as Record<string, unknown>), dataset: { examples: (v as { dataset: unknown[] }).dataset.length } };
    } else if (typeof v === 'function') out[k] = `[function ${v.name || k}]`;
    else if (v !== null && typeof v === 'object' && !isPlainData(v)) {
      const name = (v as { name?: unknown }).name;
      out[k] = typeof name === 'string' ? { name } : `[${v.constructor?.name ?? 'object'}]`;
    } else out[k] = v;
  }
  return out;
}

function isPlainData(v: object): boolean {
  if (Array.isArray(v)) return v.every((x) => typeof x !== 'object' || x === null || isPlainData(x));
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(v).every((x) => typeof x !== 'function' && (typeof x !== 'object' || x === null || isPlainData(x)));
}

/** Writes `config.json` and starts the trajectory log for one `train()` call (see {@link startTrajectoryLog}). */
export async function startRunLog(
  source: Source,
  logDir: string,
  options: Readonly<Record<string, unknown>> & { readonly trajectoryLog: TrajectoryLogOptions },
  renderer: Pick<Renderer, 'decode'>,
): Promise<() => Promise<void>> {
  await writeRunConfig(logDir, options);
  return startTrajectoryLog(source, { logDir, renderer, perStep: options.trajectoryLog.perStep });
}
