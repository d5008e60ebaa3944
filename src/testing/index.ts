/**
 * Test doubles for users' own tests: a scripted sampler, a model-free backend and a fake sandbox,
 * so environments and rewards can be tested without a model (`agentrl/testing`).
 * @packageDocumentation
 */
export { scriptedSampler, type Script } from './scripted-sampler.js';
export { fakeSandbox } from './fake-sandbox.js';
export { mockBackend, type RecordedForwardBackward } from './mock-backend.js';
