/**
 * `agentrl/testing/conformance` — the sandbox conformance suite every agentrl adapter passes (vitest): escape attempts
 * (trainer env vars, files, network, processes), limits (time, memory, output), statuses, cleanup, and — for adapters
 * with `openSession` — session persistence, isolation and teardown. A third-party `Sandbox` runs it with one call:
 *
 * ```ts no-check
 * import { sandboxConformance } from 'agentrl/testing/conformance';
 * sandboxConformance('my-sandbox', async () => mySandbox(), { sessions: {} });
 * ```
 * Needs `vitest` (a peer dependency of this entry only).
 *
 * @packageDocumentation
 */
export { sandboxConformance, type ConformanceOptions, CONFORMANCE_CASES, type ConformanceCase, type ConformanceContext } from './conformance.js';
export { SESSION_CASES, type SessionCase, type SessionContext } from './conformance.js';
export { processesWithMarker } from './proc-scan.js';
