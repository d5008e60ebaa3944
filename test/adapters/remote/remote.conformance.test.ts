import { localSandbox } from '../../../adapters/local/index.js';
import { isolatedVmSandbox } from '../../../adapters/isolated-vm/index.js';
import { createSandboxServer, remoteSandbox } from '../../../adapters/remote/index.js';
import type { Sandbox } from '../../../src/types/exec-result.js';
import { sandboxConformance } from 'agentrl/testing/conformance';

/**
 * Wraps a remote client so that closing it also stops the loopback server and the backend
 * sandbox behind it (the conformance suite only knows one `close()`).
 */
async function served(backend: Sandbox, language: string): Promise<Sandbox> {
  const server = createSandboxServer(backend);
  const { url } = await server.listen({ port: 0, host: '127.0.0.1' });
  const client = remoteSandbox({ url, language, concurrency: 4, retries: 1, timeoutMs: 10_000 });
  let closed = false;
  return {
    name: 'remote',
    run: (req, signal) => client.run(req, signal),
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
      await server.close();
      await backend.close();
    },
  };
}

// Python cases: agentrl sandbox-serve (in-process, loopback) in front of the local fork-server sandbox.
sandboxConformance('remote → sandbox-serve → local', () => served(localSandbox({ workers: 2 }), 'python'), {
  language: 'python',
  timeScale: 2,
});

// JavaScript cases: the same server in front of isolated-vm, addressed as SandboxFusion's `nodejs`.
sandboxConformance('remote → sandbox-serve → isolated-vm', () => served(isolatedVmSandbox({ workers: 1 }), 'nodejs'), {
  language: 'javascript',
});
