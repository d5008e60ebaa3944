/**
 * agentrl — reinforcement learning for LLM agents in environments with tools.
 *
 * The public API, in the order data flows: data → env → chat → rollout → reward → loss → backend → trainer → eval →
 * report (see docs/concepts.md). What a program composes: a `Trainer` with a backend, an environment, a reward, a loss
 * and a dataset; the types it implements (`Environment`, `Reward`, `Sandbox`, `TrainingBackend`); the errors it may
 * catch. Sandbox backends live in their own entry points (`agentrl/adapters/local`, `…/docker`, `…/remote`,
 * `…/isolated-vm`); test doubles and the sandbox conformance suite in `agentrl/testing`; every other building block in
 * `agentrl/internal` (not covered by semver).
 *
 * @packageDocumentation
 */

import './util/zod-peer-guard.js'; // first: a zod that is not 4.x fails here, by name

// Vocabulary shared by every layer.
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
  InvalidReason,
  Trajectory,
  Turn,
  TrajectoryStopReason,
  TrajectoryError,
  TrajectoryErrorStage,
  Sandbox,
  SandboxSession,
  SessionOptions,
  RunRequest,
  ExecResult,
  ExecStatus,
  SamplingParams,
  SamplingSettings,
  SampledSequence,
  TokenLogprob,
  StopReason,
  Datum,
  LossConfig,
  LossKind,
  Aggregation,
  CustomLoss,
  LossSequence,
  NativeLossKind,
  Reward,
  SyncReward,
  GroupReward,
  RewardResult,
  RewardFailure,
} from './internal.js';

// data
export { loadDataset, loadMathDataset, readJsonl, readParquet, dapoRowToExample, type LoadDatasetOptions } from './data/index.js';
export { gsm8kFinalAnswer, DATASET_PRESETS, type DatasetPreset } from './data/index.js';

// env
export type { Environment, ToolContext, StepOutcome } from './env/index.js';
export { codeInterpreter, type CodeInterpreterOptions } from './env/index.js';
export { defineTool, toolEnvironment, type Tool, type DefineToolOptions, type ToolEnvironmentOptions } from './env/index.js';
export { truncateTail, type TruncateOptions } from './env/index.js';
export { search, type SearchEnvOptions, bm25Retriever, type Bm25RetrieverOptions, httpRetriever, type HttpRetrieverOptions } from './env/index.js';
export {
  createRetrievalServer,
  type RetrievalServer,
  type RetrievalServerOptions,
  type Retriever,
  type Passage,
  loadCorpus,
  type CorpusDoc,
} from './env/index.js';
export {
  sqlAgent,
  type SqlAgentOptions,
  type SqlSource,
  type SqlExecutor,
  type SqlQueryRequest,
  type SqlQueryResult,
  type SqlStatus,
  type CompareOptions,
} from './env/index.js';
export { fromAiSdkTools, policyLanguageModel, type AiSdkToolLike, type PolicyLanguageModel, type PolicyLanguageModelOptions } from './env/index.js';
export { mixEnvironments, type MixEntry, type MixOptions, type MixedEnvironments } from './env/index.js';
export { agentEnvironment, type AgentEnvironment, type AgentEnvironmentOptions, type AgentRunArgs } from './env/index.js';
export {
  mcpEnvironment,
  type McpEnvironment,
  type McpEnvironmentOptions,
  type McpStdioServer,
  type McpHttpServer,
  type McpToolResult,
  type McpToolCaller,
} from './env/index.js';

// chat
export {
  loadRenderer,
  type Renderer,
  type LoadRendererOptions,
  type ChatRenderer,
  type RenderOptions,
  type NextPromptArgs,
  type RendererFiles,
  type RendererSettings,
} from './chat/index.js';
export { tokenize, type TokenPiece } from './chat/tokenize.js';
export { FAMILY_IDS, type FamilyId, type ParseOptions, type ToolCallFormat } from './chat/index.js';

// rollout
export {
  runGroup,
  runRollouts,
  DEFAULT_BUDGETS,
  DEFAULT_STEP_TIMEOUT_MS,
  type RolloutBudgets,
  type RolloutSampling,
  type RolloutFailureStrategy,
  type TurnEvent,
  type RolloutContext,
  type RunGroupOptions,
} from './rollout/index.js';
export { isDrivenEnvironment, type DrivenEnvironment, type DrivenTrajectory, type DrivenTrajectoryContext } from './rollout/index.js';
export { demonstrationDatum, type DemonstrationInput, type DemonstrationTurn, type DemonstrationCall, type TurnObservation } from './rollout/index.js';

// reward
export {
  mathReward,
  mathEquivalent,
  type MathReward,
  type MathRewardOptions,
  type MathCheckPool,
  type MathCheckOptions,
  type MathCheckPoolOptions,
  type MathEquivalenceOptions,
  type EquivalenceResult,
  type EquivalenceStatus,
} from './reward/index.js';
export { exactMatch, type ExactMatchOptions, sqlExecutionMatch, type SqlExecutionMatchOptions } from './reward/index.js';
export { withValidEnding, type WithValidEndingOptions, type EndingOptions } from './reward/index.js';
export { judgeReward, type JudgeReward, type JudgeRewardOptions, type JudgeStats, type Judge, type SamplerJudge, type EndpointJudge } from './reward/index.js';

// loss
export { groupAdvantages, groupOutcome, assembleTrainingData, buildDatums, packMicroBatches, type AdvantageOptions, type GroupOutcome } from './loss/index.js';
export type {
  AdvantageNormalization,
  AssembleOptions,
  BuildDatumOptions,
  BuildDatumsOptions,
  DatumTurn,
  PrefixMismatchPolicy,
  TokenBudget,
  DatumBatch,
  DatumSource,
  GroupOutcomeOptions,
  MicroBatch,
  PackOptions,
  PerTokenLossInputs,
  TrainingData,
  TrainingGroup,
} from './loss/index.js';
export { defineLoss, LOSSES, lossDefinition, type LossDefinition, type NativeLoss } from './loss/index.js';
export {
  klEstimate,
  correctRollouts,
  overlongPenalty,
  responseTokens,
  isInformativeGroup,
  type DynamicSamplingMetric,
  type KlEstimator,
  type RolloutCorrectionConfig,
  type RolloutCorrectionResult,
  type OverlongConfig,
} from './loss/index.js';

// backend
export type {
  TrainingBackend,
  SamplingClient,
  AdamParams,
  ForwardBackwardResult,
  ForwardBackwardOptions,
  OptimStepResult,
  SamplingSupport,
  LearnerSampling,
  BackendOptionFacts,
  OptionVerdict,
} from './backend/index.js';
export { localBackend, type LocalBackendOptions } from './backend/index.js';
export {
  tinkerBackend,
  type TinkerBackend,
  type TinkerBackendOptions,
  type TinkerLoraOptions,
  type TinkerModelInfo,
  type TinkerRendererSource,
  type TinkerRetryOptions,
  type TinkerTimeouts,
} from './backend/index.js';
export {
  ENGINE_NAMES,
  ENGINE_PROFILES,
  ADAM_FIELDS,
  checkEngineOptions,
  type EngineName,
  type EngineOption,
  type EngineProfile,
  type EngineLoss,
  type LossNormalisation,
  type SamplerFreezing,
  type AdamField,
} from './backend/index.js';
export {
  downloadCheckpoint,
  listCheckpoints,
  type DownloadCheckpointOptions,
  type DownloadedCheckpoint,
  type TinkerCheckpoint,
  type TinkerRestOptions,
} from './backend/index.js';
export { exportCheckpoint, type ExportCheckpointOptions } from './backend/local/export.js';
export { openaiCompatibleSampler, type OpenAICompatibleSampler, type OpenAICompatibleSamplerOptions, type SamplerFlavor } from './backend/index.js';

// trainer
export {
  Trainer,
  TRAINER_DEFAULTS,
  type TrainSummary,
  type TrainerOptions,
  type ResolvedTrainerOptions,
  type WithDefaults,
  type FilledIn,
} from './trainer/index.js';
export type {
  TrainerEvents,
  TrainerEventName,
  StepEvent,
  TrajectoryEvent,
  GroupEvent,
  RolloutStartEvent,
  RolloutEndEvent,
  CheckpointEvent,
  EvalEvent,
  WarningEvent,
  WarningCode,
} from './trainer/index.js';
export type { TrainerSampling, TrainerOptimizer, TrainerRolloutOptions, TrainerEvalOptions, TrainerKlOptions, LrSchedule } from './trainer/index.js';
export { scheduledLearningRate } from './trainer/index.js';
export { trainSupervised, type SupervisedTrainOptions } from './trainer/index.js';
export { coldStart, type Demonstration, type ColdStartOptions, type ColdStartResult, type DemonstrationFit } from './trainer/index.js';
export type { MetricsSink, SinkLimits } from './trainer/index.js';
export { DEFAULT_SINK_LIMITS } from './trainer/index.js';
export { toolCallAccuracy, type ToolCallAccuracy, type ToolCallMiss, type ToolCallFailure } from './trainer/tool-call-accuracy.js';

// eval
export {
  evaluate,
  evalTable,
  DEFAULT_EVAL_SEED,
  type EvaluateOptions,
  type EvalResult,
  type EvalRecord,
  type EvalTable,
  type EvalTableOptions,
} from './eval/index.js';
export { trainAndEvaluate, type TrainAndEvaluateOptions, type TrainAndEvaluateResult } from './trainer/index.js';
export { clusteredMeanInterval, wilsonInterval, type ShareInterval } from './eval/index.js';
export { passAtK } from './eval/index.js';

// report
export { plotRuns, type PlotResult, startDashboard, type Dashboard, type DashboardOptions } from './report/index.js';
export type { HttpLimits, HttpServerStats } from './http/index.js';
export type { TrajectoryRecord, TokenSegment } from './trainer/index.js';

// errors
export {
  AgentRLError,
  isAgentRLError,
  type AgentRLErrorUnion,
  type AgentRLErrorCode,
  ConfigError,
  type ConfigIssue,
  DatasetError,
  DatumShapeError,
  DemonstrationError,
  DemonstrationFitError,
  RewardShapeError,
  ZodVersionError,
  PromptPrefixError,
  TemplateRewriteError,
  TokenizerError,
  ChatTemplateError,
  RolloutFailedError,
  TrainerBusyError,
  BackendInputError,
  BackendUnavailableError,
  BackendAuthError,
  BackendRequestError,
  type BackendErrorCategory,
  CheckpointError,
  SandboxTimeoutError,
  SandboxUnavailableError,
  SandboxClosedError,
  SessionsNotSupportedError,
  RetrieverError,
  SqlDatabaseError,
  McpServerError,
  ToolTimeoutError,
  EnvironmentOutputError,
  MathWorkerError,
  SamplerResponseError,
  SamplerHttpError,
  SamplerUnavailableError,
} from './errors/index.js';
export { ResponseTooLargeError, RedirectRefusedError, SampledSequenceError, MissingPeerDependencyError } from './errors/index.js';
export { JudgeError, type JudgeFailureReason } from './errors/index.js';
