/**
 * `agentrl/adapters/isolated-vm`: run model-written JavaScript in isolated-vm isolates inside
 * recyclable child processes. See `docs/sandboxes.md`.
 */
export { isolatedVmSandbox, type IsolatedVmSandbox, type IsolatedVmSandboxOptions } from './isolated-vm-sandbox.js';
