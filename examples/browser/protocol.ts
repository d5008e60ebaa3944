/** The typed messages between the demo page (`page.ts`) and its training worker (`train-worker.ts`). */

/** Page → worker. */
export type PageMessage =
  | { readonly kind: 'start'; readonly steps: number; readonly evalEvery: number }
  | { readonly kind: 'stop' }
  /** Show a run stored by an earlier visit (a name from {@link StoredRun}). */
  | { readonly kind: 'load'; readonly name: string };

/** A run kept in the page's IndexedDB (`/runs/<name>`: metrics.jsonl, trajectories.jsonl, config.json, checkpoints/). */
export interface StoredRun {
  readonly name: string;
  /** Steps in its metrics.jsonl. */
  readonly steps: number;
  /** Its checkpoint folders (`step-NNNNN`). */
  readonly checkpoints: readonly string[];
}

/** One trajectory of a step as the dashboard renders it (`trajectoryHtml`: every field escaped). */
export interface TrajectoryView {
  readonly step: number;
  readonly reward: number;
  readonly html: string;
}

/** Worker → page. */
export type WorkerMessage =
  /** The worker's storage is open: the runs stored by earlier visits, and the trajectory viewer's styles. */
  | { readonly kind: 'ready'; readonly runs: readonly StoredRun[]; readonly viewerCss: string }
  /** What the worker is doing, one line (loading, evaluating, …). */
  | { readonly kind: 'status'; readonly text: string }
  /** A step ended: its number, every metric (`reward/mean`, `rollout/tool_calls`, …) and its wall time, ms. */
  | { readonly kind: 'step'; readonly step: number; readonly metrics: Readonly<Record<string, number>>; readonly stepMs: number }
  /** A held-out evaluation ended (step 0: before the first update). */
  | { readonly kind: 'eval'; readonly step: number; readonly averageAtN: number; readonly passAtN: number }
  /** The best-rewarded trajectory the step logged to trajectories.jsonl. */
  | ({ readonly kind: 'trajectory' } & TrajectoryView)
  /** A stored run, read back: its reward and held-out curves (from metrics.jsonl), last logged trajectory, checkpoints. */
  | {
      readonly kind: 'run';
      readonly run: StoredRun;
      readonly rewards: readonly (readonly [number, number])[];
      readonly heldOut: readonly (readonly [number, number])[];
      readonly trajectory?: TrajectoryView;
    }
  | { readonly kind: 'warning'; readonly text: string }
  /** Training ended and its files are stored (`run`: the folder name under /runs). */
  | { readonly kind: 'done'; readonly steps: number; readonly stopped: boolean; readonly run: string }
  | { readonly kind: 'error'; readonly message: string };
