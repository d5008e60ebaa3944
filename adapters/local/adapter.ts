import { availableParallelism } from 'node:os';
import { numberFlag, type SandboxAdapter } from '../../src/sandbox/adapter.js';
import type { LocalSandboxOptions } from './options.js';

/** `--backend local`: subprocesses on this machine (see {@link localSandbox}). */
export const sandboxAdapter: SandboxAdapter<LocalSandboxOptions> = {
  name: 'local',
  summary: 'subprocesses on this machine (bubblewrap namespaces when available)',
  servable: true,
  flags: { workers: { type: 'string', placeholder: '<n>', help: 'concurrent calls' } },
  optionsFromFlags(values, common) {
    const workers = numberFlag(values, 'workers');
    return { ...common, ...(workers === undefined ? {} : { workers }) };
  },
  async create(options) {
    const { localSandbox } = await import('./index.js');
    return localSandbox(options);
  },
  capacity: (options) => options.workers ?? Math.max(1, Math.min(4, availableParallelism())),
};
