import type { SandboxAdapter } from '../../src/sandbox/adapter.js';
import type { RemoteSandboxOptions } from './options.js';

/** `remote`: a client of SandboxFusion-compatible servers (see {@link remoteSandbox}); not servable itself. */
export const sandboxAdapter: SandboxAdapter<RemoteSandboxOptions> = {
  name: 'remote',
  summary: 'a client of SandboxFusion-compatible servers (e.g. agentrl sandbox-serve)',
  servable: false,
  flags: {
    'sandbox-url': { type: 'string', placeholder: '<url>', help: 'server URL' },
  },
  optionsFromFlags(values, common) {
    const url = values['sandbox-url'];
    return {
      ...(typeof url === 'string' ? { url } : {}),
      ...(common.timeoutMs === undefined ? {} : { timeoutMs: common.timeoutMs }),
      ...(common.memoryMb === undefined ? {} : { memoryLimitMb: common.memoryMb }),
    };
  },
  async create(options) {
    const { remoteSandbox } = await import('./index.js');
    return remoteSandbox(options);
  },
  // In-flight calls allowed: `concurrency` (default 8) per server.
  capacity: (options) => (options.concurrency ?? 8) * Math.max(1, options.urls?.length ?? 1),
};
