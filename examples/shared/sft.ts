/**
 * The cold-start SFT step the pipeline examples share: their demonstrations (built by each example's demos.ts) →
 * `trainSupervised` (length-bucketed cross-entropy, warm-up then cosine decay) → a checkpoint the RL job starts from.
 */
import { trainSupervised, type Datum, type Renderer, type TrainingBackend } from 'agentrl';
import { parseArgs } from './cli.js';

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

/** The command line of an example's sft.ts: `--steps --batch --lr --seed --epochs --out --save-every --init`. */
export function parseSftArgs(defaults: { readonly steps: string; readonly epochs: string; readonly out: string }): DemoSftOptions & { readonly epochs: number; readonly init?: string } {
  const { values } = parseArgs({
    options: {
      steps: { type: 'string', default: defaults.steps },
      batch: { type: 'string', default: '16' },
      lr: { type: 'string', default: '1e-3' },
      seed: { type: 'string', default: '7' },
      epochs: { type: 'string', default: defaults.epochs },
      out: { type: 'string', default: defaults.out },
      'save-every': { type: 'string', default: '100' },
      init: { type: 'string' },
    },
  });
  return {
    steps: Number(values.steps),
    batch: Number(values.batch),
    lr: Number(values.lr),
    out: values.out!,
    seed: Number(values.seed),
    epochs: Number(values.epochs),
    saveEvery: Number(values['save-every']),
    ...(values.init !== undefined ? { init: values.init } : {}),
  };
}
