/**
 * `agentrl/internal` — every building block of agentrl, layer by layer (data → env → chat → rollout → reward → loss →
 * backend → trainer → eval → report, plus the sandbox output helpers and the shared HTTP layer).
 *
 * Not covered by semver: names here may change in any release. Programs should import from `agentrl` (the curated
 * public API); this entry exists for extensions and tests that need a piece the public API does not expose.
 *
 * @packageDocumentation
 */
import './util/zod-peer-guard.js'; // first: a zod that is not 4.x fails here, by name

export type * from './types/index.js';
export * from './errors/index.js';
export * from './data/index.js';
export * from './env/index.js';
export * from './chat/index.js';
export * from './rollout/index.js';
export * from './reward/index.js';
export * from './loss/index.js';
export * from './backend/index.js';
export * from './trainer/index.js';
export * from './eval/index.js';
export * from './report/index.js';
export * from './http/index.js';
export * from './sandbox/index.js';
export * from './endpoint/openai/index.js';

// Pieces the applications (`apps/`: the CLI, `agentrl serve`) build on that no layer index lists.
export { agentrlVersion } from './util/package-version.js';
export { exportCheckpoint } from './backend/local/export.js';
export { parameterCount } from './backend/local/model-config.js';
export { workerLocalBackend } from './backend/local/worker/worker-backend.js';
export { AGENTRL_ENGINE_FLAG } from './backend/tinker/engines/detect.js';
export { TINKER_API_PREFIX, TINKER_ROUTES, adamParamsFromWire, lossConfigFromWire } from './backend/tinker/protocol/index.js';
export { digestKeys, matchApiKey, presentedKey } from './http/api-key.js';
export { loadSandboxAdapters, sandboxAdapter } from './sandbox/adapter-registry.js';
export { numberFlag, type SandboxAdapter } from './sandbox/adapter.js';
export { UsageError } from './errors/usage-error.js';
export { InternalError, invariant, unreachable } from './errors/internal-error.js';
export { parseNumberFlag } from './util/number-flag.js';
