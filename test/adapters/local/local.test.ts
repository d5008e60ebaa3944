import type { Sandbox } from '../../../src/types/exec-result.js';
import { localSandbox, type LocalSandbox } from '../../../adapters/local/index.js';
import { pathsToHide, probeBwrap } from '../../../adapters/local/isolation.js';
import { sandboxConformance } from 'agentrl/testing/conformance';

// Every zygote / call process of a LocalSandbox carries its instanceId in its argv.
const leftoverMarker = (sb: Sandbox): string => (sb as LocalSandbox).instanceId;

const common = { workers: 2, timeoutMs: 10_000, memoryMb: 512, maxOutputBytes: 65_536 } as const;

// CI must install bubblewrap (and allow user namespaces); where it cannot work, the fallback is
// still exercised and the cases that need namespaces are reported as skipped with the reason.
const probe = probeBwrap('/usr/bin/python3', pathsToHide('/usr/bin/python3', undefined).hide);
const isolation = probe.ok ? ('bwrap' as const) : ('none' as const);
const why = probe.ok ? '' : `no usable bubblewrap here (${probe.reason})`;
const skip: Record<string, string> = probe.ok
  ? {}
  : Object.fromEntries(
      ['fresh-state-file', 'daemon-escape', 'fork-bomb', 'network-egress', 'write-outside-tmp', 'signal-trainer', 'zombies'].map((k) => [k, why]),
    );

for (const mode of ['fork-server', 'spawn'] as const) {
  sandboxConformance(`local ${mode} (${isolation})`, async () => localSandbox({ ...common, mode, isolation }), {
    leftoverMarker,
    skip,
    ...(mode === 'fork-server' ? { sessions: { memoryMb: common.memoryMb } } : {}),
  });
}
