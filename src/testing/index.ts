/**
 * Test doubles for users' own tests: a scripted sampler, a model-free backend and a fake sandbox,
 * so environments and rewards can be tested without a model (`agentrl/testing`).
 * @packageDocumentation
 */
import '../util/zod-peer-guard.js'; // first: a zod that is not 4.x fails here, by name
export { scriptedSampler, type Script } from './scripted-sampler.js';
export { fakeSandbox } from './fake-sandbox.js';
export { mockBackend, type RecordedForwardBackward } from './mock-backend.js';
