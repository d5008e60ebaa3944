/** The typed messages between the demo page (`page.ts`) and its training worker (`train-worker.ts`). */

/** Page → worker. */
export type PageMessage =
  | { readonly kind: 'start'; readonly steps: number; readonly evalEvery: number }
  | { readonly kind: 'stop' };

/** Worker → page. */
export type WorkerMessage =
  /** What the worker is doing, one line (loading, evaluating, …). */
  | { readonly kind: 'status'; readonly text: string }
  /** A step ended: its number, every metric (`reward/mean`, `rollout/tool_calls`, …) and its wall time, ms. */
  | { readonly kind: 'step'; readonly step: number; readonly metrics: Readonly<Record<string, number>>; readonly stepMs: number }
  /** A held-out evaluation ended (step 0: before the first update). */
  | { readonly kind: 'eval'; readonly step: number; readonly averageAtN: number; readonly passAtN: number }
  /** One finished trajectory of the step: its tokens as text pieces, each sampled (mask 1) or not (prompt, observation). */
  | { readonly kind: 'trajectory'; readonly step: number; readonly reward: number; readonly segments: readonly { readonly text: string; readonly sampled: boolean }[] }
  | { readonly kind: 'warning'; readonly text: string }
  | { readonly kind: 'done'; readonly steps: number; readonly stopped: boolean }
  | { readonly kind: 'error'; readonly message: string };
