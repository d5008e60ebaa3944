/**
 * The cold-start SFT step the pipeline examples share: their demonstrations (built by each example's demos.ts) →
 * `trainSupervised` (length-bucketed cross-entropy, warm-up then cosine decay) → a checkpoint the RL job starts from.
 */
import { loadMathDataset, trainSupervised, type Datum, type Environment, type Example, type Renderer, type TrainingBackend } from 'agentrl';
import { parseArgs } from './cli.js';
import type { MixDemoOptions } from './demo-styles.js';
import { optional, sftFlags, str } from './flags.js';

/** Run settings of {@link runDemoSft}. */
export interface DemoSftOptions {
  readonly steps: number;
  readonly batch: number;
  /** Peak learning rate. */
  readonly lr: number;
  /** Checkpoint folder (`saveState`). */
  readonly out: string;
  readonly seed: number;
  /** Also save every this many steps (0 or absent: only at the end). */
  readonly saveEvery?: number;
  readonly log?: (s: string) => void;
}

/** An example's demonstrations as datums, and what to say about them in the log line (`sft: N demonstrations (…)`). */
export interface DemoDatums {
  readonly datums: readonly Datum[];
  readonly note: string;
}

/** Builds the demonstrations with the backend's renderer, trains on them and saves to `opts.out`; closes the backend. */
export async function runDemoSft(backend: TrainingBackend, opts: DemoSftOptions, demos: (renderer: Renderer) => Promise<DemoDatums>): Promise<void> {
  const log = opts.log ?? console.log;
  const { datums, note } = await demos(await backend.renderer());
  log(`sft: ${datums.length} demonstrations (${note}), longest ${Math.max(...datums.map((d) => d.modelInput.length))} tokens`);
  await trainSupervised(backend, datums, {
    steps: opts.steps,
    batchSize: opts.batch,
    learningRate: opts.lr,
    seed: opts.seed,
    savePath: opts.out,
    ...(opts.saveEvery ? { saveEvery: opts.saveEvery } : {}),
    onStep: (e) => {
      if (e.step % 25 === 0 || e.step === 1) log(`sft step ${e.step}/${opts.steps} loss ${e.loss.toFixed(4)} (${e.elapsedS.toFixed(0)}s)`);
    },
  });
  log(`sft: saved ${opts.out}`);
  await backend.close();
}

/** What a tool agent whose demonstrations step the real environment (search-agent, sql-agent) plugs into {@link runAgentSft}. */
export interface AgentSft {
  readonly paths: { readonly train: string };
  readonly budgets: { readonly maxToolResponseTokens: number };
  readonly model: { readonly contextTokens: number };
  /** Fresh weights from `seed`, or the state saved in `checkpoint`. */
  makeBackend(choice: { readonly checkpoint: string } | { readonly seed: number }): TrainingBackend;
  /** The environment the demonstrations are rendered through (closed once they are built). */
  makeEnv(): Promise<Environment>;
  buildDemoDatums(
    renderer: Renderer,
    env: Environment,
    examples: readonly Example[],
    opts: MixDemoOptions,
  ): Promise<{ datums: Datum[]; styles: object; dropped: number }>;
}

/**
 * Cold-start SFT of a tool agent: `epochs` passes of demonstrations over the training questions (longer than the
 * context: left out), from fresh weights or from `opts.init`, saved to `opts.out` (`saveState`).
 */
export async function runAgentSft(task: AgentSft, opts: DemoSftOptions & { readonly epochs: number; readonly init?: string | undefined }): Promise<void> {
  const train = await loadMathDataset(task.paths.train);
  const backend = task.makeBackend(opts.init !== undefined ? { checkpoint: opts.init } : { seed: opts.seed });
  await runDemoSft(backend, opts, async (renderer) => {
    const env = await task.makeEnv();
    const { datums, styles, dropped } = await task.buildDemoDatums(renderer, env, train, {
      seed: opts.seed,
      epochs: opts.epochs,
      maxToolResponseTokens: task.budgets.maxToolResponseTokens,
      maxTokens: task.model.contextTokens,
    });
    await env.close?.();
    return { datums, note: `${JSON.stringify(styles)}; ${dropped} over the context left out` };
  });
}

/**
 * The command line of an example's sft.ts: `--steps --batch --lr --seed [--epochs] --out --save-every` and the
 * checkpoint to continue from (`--init`, or the flag named by `initFlag`). `--epochs` only where `defaults.epochs` is given.
 */
export function parseSftArgs(
  defaults: { readonly steps: string; readonly epochs?: string; readonly out: string },
  initFlag = 'init',
): DemoSftOptions & { readonly epochs?: number; readonly init?: string } {
  const { values } = parseArgs({
    options: {
      ...sftFlags(defaults.steps),
      ...(defaults.epochs !== undefined ? { epochs: str(defaults.epochs) } : {}),
      out: str(defaults.out),
      'save-every': str('100'),
      [initFlag]: optional(),
    },
  });
  const v = values as Record<string, string | undefined>;
  return {
    steps: Number(v['steps']),
    batch: Number(v['batch']),
    lr: Number(v['lr']),
    out: v['out']!,
    seed: Number(v['seed']),
    ...(defaults.epochs !== undefined ? { epochs: Number(v['epochs']) } : {}),
    saveEvery: Number(v['save-every']),
    ...(v[initFlag] !== undefined ? { init: v[initFlag] } : {}),
  };
}
