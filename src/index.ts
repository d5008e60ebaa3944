/**
 * agentrl — reinforcement learning for LLM agents in environments with tools.
 *
 * Layers, in the order data flows: data → env → chat → rollout → reward → loss → backend → trainer → eval.
 * Sandbox backends live in their own entry points (`agentrl/adapters/local`, `…/docker`, `…/remote`, `…/isolated-vm`);
 * test doubles in `agentrl/testing`.
 *
 * @packageDocumentation
 */

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
export * from './serve/openai/index.js';
export { createServeApp, TinkerService, ServeRequestError, type ServeApp, type ServeAppOptions, type ServePlugin, type TinkerServiceOptions, type ErrorCategory } from './serve/tinker/index.js';
