import type { Example } from '../types/example.js';
import type { ToolDefinition } from '../types/message.js';
import type { GroupReward, Reward } from '../types/reward.js';
import { ConfigError, type ConfigIssue } from '../errors/config-error.js';
import { mulberry32 } from '../util/rng.js';
import type { Environment } from './types.js';
import { toolDefinitionIssues } from './tool-definitions.js';
import { checkOptions, optionKeys } from '../util/check-options.js';

const MIX_OPTIONS = optionKeys<MixOptions>({ seed: true, shuffle: true });

/** One environment of a mix: its data, its reward and how often it is drawn. */
export interface MixEntry<E extends Example = Example> {
  /** The environment this entry's examples run in. */
  // biome-ignore lint/suspicious/noExplicitAny: an environment typed for a richer Example is accepted (as by the Trainer)
  readonly env: Environment<any>;
  /** This environment's examples (ids must be unique across the mix). */
  readonly dataset: readonly E[];
  /** Scores this environment's trajectories. */
  // biome-ignore lint/suspicious/noExplicitAny: as env, a reward typed for a richer Example
  readonly reward: Reward<any>;
  /** Compares a group's members (see `GroupReward`), for this environment's groups only. */
  // biome-ignore lint/suspicious/noExplicitAny: as reward
  readonly groupReward?: GroupReward<any>;
  /** Relative weight (> 0): the share of groups drawn from this environment is `weight / Σ weights`. @default 1 */
  readonly weight?: number;
  /** Name in metrics (`env/<name>/reward/mean`) and example ids (`<name>/<id>`). @default `env.name` */
  readonly name?: string;
}

/** Options of {@link mixEnvironments}. */
export interface MixOptions {
  /** Seed of the draw order (which environment each group comes from) and of each environment's shuffle. @default 0 */
  readonly seed?: number;
  /** Shuffle each environment's dataset once per pass over it. @default true */
  readonly shuffle?: boolean;
}

/** What {@link mixEnvironments} returns: spread it into the Trainer options (`new Trainer({ ...mixed, backend, loss })`). */
export interface MixedEnvironments {
  /** The mixed environment: runs each example's group in its own environment (`envFor`); `tools` is the union. */
  readonly env: Environment;
  /**
   * The examples in draw order, each tagged with its environment (`id` = `<name>/<id>`, or `<name>/<id>~<k>` for
   * its k-th repeat; `meta['agentrl.env']` = name): one pass in which every environment yields at least its whole dataset (the one needing most draws
   * for its weight) and the others cycle through theirs. Deterministic for a seed, so the Trainer's data position
   * in a checkpoint fixes every environment's position: a resumed run continues each one where it was.
   */
  readonly dataset: readonly Example[];
  /** Scores each trajectory with its environment's reward. */
  readonly reward: Reward;
  /** Each group's own environment's group reward (a group of an environment without one gets 0s). Set when any entry has one. */
  readonly groupReward?: GroupReward;
}

/** Key of the environment name in a mixed example's `meta`. */
export const MIX_ENV_KEY = 'agentrl.env';

/** Longest mixed dataset built (draws per pass). */
const MAX_DRAWS = 1_000_000;

function validate(entries: readonly MixEntry[]): string[] {
  const issues: ConfigIssue[] = [];
  if (!Array.isArray(entries) || entries.length === 0)
    throw new ConfigError('mixEnvironments', [{ path: '', message: 'expected at least one { env, dataset, reward, weight }' }]);
  const names = entries.map((e, i) => e?.name ?? e?.env?.name ?? `#${i}`);
  entries.forEach((e, i) => {
    if (typeof e?.env?.initialMessages !== 'function' || typeof e.env.step !== 'function')
      issues.push({ path: `${i}.env`, message: 'expected an Environment' });
    else if (Array.isArray(e.env.tools)) issues.push(...toolDefinitionIssues(e.env.tools, `${i}.env.tools`));
    if (!Array.isArray(e?.dataset) || e.dataset.length === 0) issues.push({ path: `${i}.dataset`, message: 'expected at least one example' });
    if (typeof e?.reward !== 'function') issues.push({ path: `${i}.reward`, message: 'expected a reward function' });
    if (e?.weight !== undefined && !(Number.isFinite(e.weight) && e.weight > 0))
      issues.push({ path: `${i}.weight`, message: `expected a number > 0, got ${e.weight}` });
    if (!/^[\w.-]+$/.test(names[i]!)) issues.push({ path: `${i}.name`, message: `'${names[i]}' cannot be a metric name (letters, digits, _ . -)` });
  });
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) issues.push({ path: 'name', message: `two environments are named '${dup}'; give each a distinct name` });
  if (issues.length) throw new ConfigError('mixEnvironments', issues);
  return names;
}

/**
 * Several environments in one Trainer run (prime-rl's and tinker-cookbook's mixed environments): each group is drawn
 * from one environment with probability `weight / Σ weights` (a seeded draw order), rolled out in that environment,
 * scored by its reward; the Trainer reports the usual metrics overall and per environment (`env/<name>/reward/mean`,
 * `env/<name>/rollout/turns`, …). Checkpoints keep each environment's data position (see
 * {@link MixedEnvironments.dataset}).
 * @example
 * const mixed = mixEnvironments([
 *   { env: codeInterpreter({ sandbox }), dataset: math, reward: mathReward(), weight: 3 },
 *   { env: await mcpEnvironment({ server, initialMessages }), dataset: facts, reward: exactMatch(), weight: 1, name: 'memory' },
 * ]);
 * new Trainer({ ...mixed, backend, loss, groupSize: 8 });
 * @throws ConfigError for an empty mix, a bad entry, a weight ≤ 0 or two entries with one name; the mixed
 *   environment's methods and reward throw (or reject with) a ConfigError for an example that names no environment of
 *   the mix.
 */
export function mixEnvironments(entries: readonly MixEntry[], opts: MixOptions = {}): MixedEnvironments {
  checkOptions('mixEnvironments options', MIX_OPTIONS, opts, { optional: true });
  const names = validate(entries);
  const byName = new Map(entries.map((e, i) => [names[i]!, e]));
  const renamed = new Map(entries.map((e, i) => [e, named(e.env as Environment, names[i]!)]));
  const entryOf = (ex: Example): MixEntry => {
    const name = ex.meta?.[MIX_ENV_KEY];
    const e = typeof name === 'string' ? byName.get(name) : undefined;
    if (!e) {
      const said = typeof name === 'string' ? `meta['${MIX_ENV_KEY}'] is '${name.slice(0, 80)}'` : `no meta['${MIX_ENV_KEY}']`;
      throw new ConfigError('mixEnvironments', [
        { path: `example '${String(ex.id).slice(0, 80)}'`, message: `is not from this mix (${said}; the mix has ${names.join(', ')})` },
      ]);
    }
    return e;
  };
  const envOf = (ex: Example): Environment => renamed.get(entryOf(ex))!;

  const seen = new Set<string>();
  const tools: ToolDefinition[] = [];
  for (const e of entries)
    for (const t of e.env.tools)
      if (!seen.has(t.function.name)) {
        seen.add(t.function.name);
        tools.push(t);
      }

  const env: Environment = {
    name: `mix(${names.join(',')})`,
    tools,
    envFor: envOf,
    initialMessages: (ex) => envOf(ex).initialMessages(ex),
    step: async (action, ctx) => envOf(ctx.example).step(action, ctx),
    endTrajectory: async (ctx) => envOf(ctx.example).endTrajectory?.(ctx),
    async close() {
      await Promise.all(entries.map((e) => e.env.close?.()));
    },
  };
  const reward: Reward = async (t, ex) => entryOf(ex).reward(t, ex);
  const anyGroupReward = entries.some((e) => e.groupReward);
  const groupReward: GroupReward = (g) => entryOf(g.example).groupReward?.(g) ?? g.trajectories_G.map(() => 0);
  return { env, dataset: drawOrder(entries, names, opts), reward, ...(anyGroupReward ? { groupReward } : {}) };
}

/** `env` under the entry's name (metrics, errors), its methods still bound to itself. */
function named(env: Environment, name: string): Environment {
  if (env.name === name) return env;
  return new Proxy(env, {
    get(target, key) {
      if (key === 'name') return name;
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** The tagged examples in draw order (see {@link MixedEnvironments.dataset}). */
function drawOrder(entries: readonly MixEntry[], names: readonly string[], opts: MixOptions): Example[] {
  const rng = mulberry32(opts.seed ?? 0);
  const total = entries.reduce((s, e) => s + (e.weight ?? 1), 0);
  const p = entries.map((e) => (e.weight ?? 1) / total);
  const tagged = entries.map((e, i) => e.dataset.map((ex): Example => ({ ...ex, id: `${names[i]}/${ex.id}`, meta: { ...ex.meta, [MIX_ENV_KEY]: names[i] } })));
  const orders: Example[][] = entries.map(() => []);
  const passes = entries.map(() => 0);
  const next = (i: number): Example => {
    if (orders[i]!.length === 0) {
      const pass = passes[i]!++;
      // ids stay unique within the mix: the k-th repeat of an environment's data is `<name>/<id>~<k>`
      const order = pass === 0 ? [...tagged[i]!] : tagged[i]!.map((ex) => ({ ...ex, id: `${ex.id}~${pass}` }));
      if (opts.shuffle ?? true) {
        for (let k = order.length - 1; k > 0; k--) {
          const j = Math.floor(rng() * (k + 1));
          [order[k], order[j]] = [order[j]!, order[k]!];
        }
      }
      orders[i] = order;
    }
    return orders[i]!.shift()!;
  };
  const out: Example[] = [];
  // Draw by weight until every environment has yielded its whole dataset once.
  const fullPass = (i: number) => passes[i]! > 1 || (passes[i] === 1 && orders[i]!.length === 0);
  while (out.length < MAX_DRAWS && !entries.every((_, i) => fullPass(i))) {
    let u = rng();
    let i = 0;
    while (i < p.length - 1 && u >= p[i]!) u -= p[i++]!;
    out.push(next(i));
  }
  return out;
}
