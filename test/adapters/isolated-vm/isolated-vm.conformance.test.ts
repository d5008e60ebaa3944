import { isolatedVmSandbox } from '../../../adapters/isolated-vm/index.js';
import type { Sandbox } from '../../../src/types/exec-result.js';
import { sandboxConformance } from 'agentrl/testing/conformance';

// JavaScript cases of the shared suite (Python-only cases — fork, rlimits, numpy — do not apply to
// an in-process JS engine; their JS counterparts live in isolated-vm.test.ts).
sandboxConformance('isolated-vm', async () => isolatedVmSandbox({ workers: 2, timeoutMs: 5000 }), {
  language: 'javascript',
  leftoverMarker: (sb: Sandbox) => `agentrl-ivm-${(sb as ReturnType<typeof isolatedVmSandbox>).instanceId}`,
  sessions: {},
});
