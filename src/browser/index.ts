/**
 * agentrl/browser — the core a web page (or a Web Worker) needs to train a tool-using policy with no server: the
 * `Trainer`, the embedded engine (`localBackend`), chat renderers, tool environments, rewards that need no worker
 * thread, losses, events and `evaluate`. No Node built-in is anywhere in this entry's import graph
 * (`scripts/check-browser-bundle.mjs` bundles it for `platform: 'browser'` in CI and fails on any).
 *
 * Files: what the library writes (run logs with `logDir`, checkpoints, eval output) and reads (model files, a
 * checkpoint given by path) go to the page's {@link RunStorage}, in memory unless {@link useStorage} installs another:
 * {@link indexedDbStorage} keeps them in IndexedDB across page reloads. {@link trajectoryHtml} renders a
 * `trajectories.jsonl` record as the dashboard does (tokens coloured by loss mask).
 * The embedded model's tokenizer files are pre-loaded at `/assets/local-model`, so `localBackend()` works with its
 * defaults; a checkpoint is handed over as data or URLs with {@link mountFiles} and then named by its path.
 *
 * Not here (Node-only today): `mathReward` (its equivalence checks run in a worker-thread pool), dataset loaders
 * that read files, the HTTP backends and servers, the sandbox adapters, reports and the dashboard.
 *
 * @packageDocumentation
 */

import '../util/zod-peer-guard.js';
import { mountBundledAssets } from './bundled-assets.js';

mountBundledAssets();

export type {
  Example,
  ExampleFields,
  Message,
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ToolMessage,
  ToolCall,
  ToolDefinition,
  JsonSchema,
  ParsedAction,
  Trajectory,
  Turn,
  Sandbox,
  SandboxSession,
  RunRequest,
  ExecResult,
  ExecStatus,
  SamplingParams,
  Datum,
  LossConfig,
  LossKind,
  Reward,
  RewardResult,
} from '../internal.js';

// platform
export { memoryStorage, type RunStorage } from '../platform/storage.js';
export { useStorage, currentStorage } from '../platform/fs.browser.js';
export { indexedDbStorage, type PersistentStorage, type IndexedDbStorageOptions } from '../platform/indexeddb-storage.js';
export { mountFiles, mountBundledAssets, type MountSource } from './bundled-assets.js';

// env
export type { Environment, ToolContext, StepOutcome } from '../env/types.js';
export { defineTool, toolEnvironment, type Tool, type DefineToolOptions, type ToolEnvironmentOptions } from '../env/define-tool.js';
export { codeInterpreter, type CodeInterpreterOptions } from '../env/code-interpreter.js';
export { truncateTail, type TruncateOptions } from '../env/truncate.js';

// chat
export { loadRenderer } from '../chat/load-renderer.js';
export { createRenderer, type ChatRenderer } from '../chat/renderer.js';
export type { Renderer, RenderOptions, NextPromptArgs } from '../chat/types.js';
export type { LoadRendererOptions, RendererSettings, RendererFiles } from '../chat/options.js';

// rollout
export { runGroup, runRollouts, DEFAULT_BUDGETS, type RolloutBudgets } from '../rollout/index.js';

// reward
export { exactMatch, type ExactMatchOptions } from '../reward/exact-match.js';
export { withValidEnding, type WithValidEndingOptions, type EndingOptions } from '../reward/ending.js';

// loss
export { groupAdvantages, groupOutcome, assembleTrainingData, buildDatums, packMicroBatches, type AdvantageOptions, type GroupOutcome } from '../loss/index.js';
export { defineLoss, LOSSES, lossDefinition, type LossDefinition, type NativeLoss } from '../loss/index.js';

// backend
export type { TrainingBackend, SamplingClient, AdamParams } from '../backend/types.js';
export { localBackend, type LocalBackendOptions } from '../backend/local/local-backend.js';

// trainer and events
export { Trainer, type TrainSummary } from '../trainer/trainer.js';
export type { TrainerOptions } from '../trainer/options.js';
export type * from '../trainer/events.js';
export type * from '../trainer/trainer-events.js';
export { coldStart, type Demonstration, type ColdStartOptions, type ColdStartResult } from '../trainer/cold-start.js';
export type { MetricsSink } from '../trainer/metrics-sink.js';
export type { TrajectoryRecord, TokenSegment } from '../trainer/trajectory-log.js';

// report: the dashboard's trajectory view (pure HTML, every field escaped)
export { trajectoryHtml, TRAJECTORY_CSS } from '../report/trajectory-html.js';

// eval
export { evaluate, type EvaluateOptions, type EvalResult, type EvalRecord } from '../eval/evaluate.js';
export { passAtK } from '../eval/pass-at-k.js';

// errors
export { AgentRLError, isAgentRLError, ConfigError, CheckpointError, TokenizerError, RolloutFailedError } from '../errors/index.js';
