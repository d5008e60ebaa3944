import { localSandbox } from '../../../adapters/local/index.js';
import { sandboxConformance } from '../../sandbox-conformance/conformance.js';

import type { Sandbox } from '../../../src/types/exec-result.js';
import type { LocalSandbox } from '../../../adapters/local/index.js';

// Every zygote / call process of a LocalSandbox carries its instanceId in its argv.
const leftoverMarker = (sb: Sandbox): string => (sb as LocalSandbox).instanceId;

const common = { workers: 2, timeoutMs: 10_000, memoryMb: 1024, maxOutputBytes: 65_536 } as const;

sandboxConformance('local fork-server', async () => localSandbox({ ...common, mode: 'fork-server', isolation: 'bwrap' }), {
  leftoverMarker,
});

sandboxConformance('local spawn', async () => localSandbox({ ...common, mode: 'spawn', isolation: 'bwrap' }), {
  leftoverMarker,
});
