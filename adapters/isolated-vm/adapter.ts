import { numberFlag, type SandboxAdapter } from '../../src/sandbox/adapter.js';
import type { IsolatedVmSandboxOptions } from './isolated-vm-sandbox.js';

/** `--backend isolated-vm`: JavaScript in isolated-vm isolates inside child processes (see {@link isolatedVmSandbox}). */
export const sandboxAdapter: SandboxAdapter<IsolatedVmSandboxOptions> = {
  name: 'isolated-vm',
  summary: 'JavaScript in isolated-vm isolates inside recyclable child processes',
  servable: true,
  flags: { workers: { type: 'string', placeholder: '<n>', help: 'worker processes' } },
  optionsFromFlags(values, common) {
    const workers = numberFlag(values, 'workers');
    return { ...common, ...(workers === undefined ? {} : { workers }) };
  },
  async create(options) {
    const { isolatedVmSandbox } = await import('./index.js');
    return isolatedVmSandbox(options);
  },
  capacity: (options) => options.workers ?? 1,
};
