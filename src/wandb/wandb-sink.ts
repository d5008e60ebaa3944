import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { ConfigError } from '../errors/config-error.js';
import { MissingPeerDependencyError } from '../errors/dependency-errors.js';
import { configIssuesFromZod, schemaKeysAt } from '../errors/config-issues.js';
import { isModuleNotFound } from '../util/optional-peer.js';
import type { MetricsSink } from '../trainer/metrics-sink.js';
import { WANDB_WORKER_SOURCE } from './worker-source.js';

/** Options of {@link wandbSink}. Every field is optional; W&B's own environment variables fill the gaps. */
export interface WandbSinkOptions {
  /** The W&B project the run goes to. @default `WANDB_PROJECT`, else `'agentrl'` */
  readonly project?: string;
  /** The team or user that owns the project. @default `WANDB_ENTITY`, else the API key's default entity (W&B is asked at start) */
  readonly entity?: string;
  /** The run's display name. @default the Trainer's `runName` (e.g. `code-interpreter · ppo · 8×8 · lr 4e-5`) */
  readonly name?: string;
  /** The run's id in the project (letters, digits, `-`, `_`; reusing one appends to that run). @default 8 random characters */
  readonly id?: string;
  /** The API key. @default `WANDB_API_KEY`, else the key `wandb login` stored in `~/.netrc` for the host */
  readonly apiKey?: string;
  /** The W&B API server (a self-hosted one, say). @default `WANDB_BASE_URL`, else `https://api.wandb.ai` */
  readonly baseUrl?: string;
  /**
   * How long `close()` waits for the SDK to send the last rows and mark the run finished, in ms; after it the SDK's
   * thread is stopped and a warning says the last rows may be missing. @default 30000
   */
  readonly finishTimeoutMs?: number;
}

const optionsSchema = z.strictObject({
  project: z.string().trim().min(1, 'expected a non-empty project name').max(128, 'expected at most 128 characters').optional(),
  entity: z.string().trim().min(1, 'expected a non-empty entity').max(128, 'expected at most 128 characters').optional(),
  name: z.string().trim().min(1, 'expected a non-empty name').max(128, 'expected at most 128 characters').optional(),
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, 'expected 1–128 letters, digits, - or _')
    .optional(),
  apiKey: z.string().min(1, 'expected a non-empty API key').optional(),
  baseUrl: z.string().refine(isHttpUrl, 'expected an http(s) URL').optional(),
  finishTimeoutMs: z.number().int('expected whole milliseconds').positive('expected a duration > 0 ms').max(600_000, 'expected at most 600000 ms').optional(),
});

function isHttpUrl(s: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(s).protocol);
  } catch {
    return false;
  }
}

type FromWorker = { readonly type: 'ready'; readonly url: string } | { readonly type: 'failed'; readonly message: string } | { readonly type: 'finished' };

const INSTALL = 'npm install @wandb/sdk@0.5.1';
const NOT_SENT = "this run's metrics are not sent to W&B (they are in its metrics.jsonl)";

/** Where `@wandb/sdk` is, resolved from agentrl's own folder (as an import of it would be). */
function resolveSdk(): string {
  try {
    return createRequire(import.meta.url).resolve('@wandb/sdk');
  } catch (err) {
    if (isModuleNotFound(err, '@wandb/sdk'))
      throw new MissingPeerDependencyError({ packageName: '@wandb/sdk', feature: 'wandbSink (agentrl/wandb)', installCommand: INSTALL, cause: err });
    throw err;
  }
}

/** What the SDK printed before a failure, boiled down to its cause (it logs `Fatal HTTP error (401): …` and returns null). */
function causeIn(output: string): string | undefined {
  const status = /Fatal HTTP error \((\d+)\)/.exec(output)?.[1];
  if (status) return `W&B answered HTTP ${status}${status === '401' || status === '403' ? ' (check the API key)' : ''}`;
  const fatal = /Fatal error:\s+(.+)/.exec(output)?.[1]?.trim();
  if (fatal) return fatal.slice(0, 300);
  if (/Max retries \(\d+\) reached/.test(output)) return 'W&B kept failing and the SDK gave up';
  return undefined;
}

/**
 * Weights & Biases run tracking through W&B's official TypeScript SDK (`@wandb/sdk` 0.5.1, an optional peer
 * dependency of agentrl: `npm install @wandb/sdk@0.5.1`). At the start of `train()` it creates a W&B run whose config
 * is the Trainer's resolved options (what `config.json` holds) and whose display name is `runName`; each step's
 * metrics record (`reward/mean`, `optim/loss`, `eval/*` on eval steps, …; docs/metrics.md) becomes one history row at
 * W&B step = the Trainer's step (`0` is the before-training eval); `close()` marks the run finished. Trajectories,
 * turns and warnings are not sent (the JS SDK has no tables; use `agentrl/otel` for per-trajectory traces).
 *
 * The SDK runs in a worker thread of its own: it reports some failures by throwing inside its message listener and
 * installs a `SIGINT` handler that calls `process.exit`, so on the Trainer's thread either would end the run. Here a
 * W&B failure (no API key, HTTP 401, W&B unreachable) is one `console.warn` naming the cause, and training goes on;
 * the metrics stay in the run folder's `metrics.jsonl`. The SDK's `WANDB_MODE=offline` is not an offline mode (it
 * still needs a key and the network to create the run and then sends no history), so this sink has none: without a
 * key it warns and sends nothing. Prints `wandb: <run URL>` on stderr once the run exists.
 *
 * @throws ConfigError for invalid options (dotted paths, e.g. `finishTimeoutMs: expected a duration > 0 ms, got -1`).
 * @throws MissingPeerDependencyError when `@wandb/sdk` is not installed.
 * @example
 * ```ts
 * import { wandbSink } from 'agentrl/wandb';
 * new Trainer({ ...options, sinks: [wandbSink({ project: 'retool' })] });   // WANDB_API_KEY in the environment
 * ```
 */
export function wandbSink(opts: WandbSinkOptions = {}): MetricsSink {
  const parsed = optionsSchema.safeParse(opts);
  if (!parsed.success)
    throw new ConfigError(
      'wandbSink options',
      configIssuesFromZod(parsed.error.issues, opts, (path) => schemaKeysAt(optionsSchema, path)),
    );
  const o = parsed.data;
  const sdkPath = resolveSdk();
  const finishTimeoutMs = o.finishTimeoutMs ?? 30_000;

  let worker: Worker | undefined;
  let output = '';
  let stopped = false;
  let confirmed = false;
  // Settles once the SDK confirmed the run's end or the sink stopped it: what close() waits for.
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));

  const stop = (why: string, consequence = NOT_SENT) => {
    if (stopped) return;
    stopped = true;
    const cause = causeIn(output);
    console.warn(`wandbSink: ${why}${cause && !why.includes(cause) ? ` (${cause})` : ''}; ${consequence}`);
    settle();
    void worker?.terminate();
  };

  const start = (config: Readonly<Record<string, unknown>>) => {
    if (worker || stopped) return;
    const settings = { silent: true, ...(o.apiKey ? { apiKey: o.apiKey } : {}), ...(o.baseUrl ? { baseUrl: o.baseUrl.replace(/\/+$/, '') } : {}) };
    const project = o.project ?? (process.env['WANDB_PROJECT'] || 'agentrl');
    const entity = o.entity ?? (process.env['WANDB_ENTITY'] || undefined);
    const name = o.name ?? (typeof config['runName'] === 'string' ? config['runName'] : undefined);
    const init = { project, config, settings, ...(entity ? { entity } : {}), ...(name ? { name } : {}), ...(o.id ? { id: o.id } : {}) };
    const w = new Worker(WANDB_WORKER_SOURCE, { eval: true, workerData: { sdkPath, init }, stdout: true, stderr: true });
    worker = w;
    // Only close() needs the thread to finish; until then it must not keep a finished program running.
    w.unref();
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8192);
    };
    w.stdout.on('data', keep);
    w.stderr.on('data', keep);
    w.on('message', (m: FromWorker) => {
      if (m.type === 'ready') process.stderr.write(`wandb: ${m.url}\n`);
      else if (m.type === 'failed') stop(`W&B run not recorded: ${m.message}`);
      else {
        confirmed = true;
        settle();
      }
    });
    w.on('error', (e) => stop(`the W&B SDK failed: ${e.message}`));
    w.on('exit', (code) => {
      if (!confirmed) stop(`the W&B SDK's thread ended early (exit code ${code})`);
    });
  };

  return {
    config(config) {
      start(config);
    },
    write(record) {
      if (!worker) start({});
      if (stopped) return;
      const { step, ...data } = record;
      worker!.postMessage({ type: 'log', data, step: typeof step === 'number' ? step : undefined });
    },
    async close() {
      const w = worker;
      if (!w || stopped) {
        await w?.terminate();
        return;
      }
      w.ref();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), finishTimeoutMs)));
      w.postMessage({ type: 'finish' });
      const outcome = await Promise.race([settled, timeout]);
      clearTimeout(timer);
      if (outcome === 'timeout')
        stop(
          `W&B did not confirm the end of the run within ${finishTimeoutMs} ms (unreachable, or the SDK still retrying)`,
          'its last rows may be missing there (all are in the metrics.jsonl)',
        );
      stopped = true;
      await w.terminate();
    },
  };
}
