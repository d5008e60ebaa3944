export { localSandbox, type LocalSandbox, type LocalSandboxEvents } from './local-sandbox.js';
export { type LocalSandboxOptions, type LocalSandboxWarning, resolveLocalOptions, DEFAULT_WARMUP } from './options.js';
export { CHILD_ENV, PROTECTIONS_OFF_WITHOUT_BWRAP } from './isolation.js';
export type { ResolvedLocalOptions } from './options.js';
export type { MemoryControl } from './cgroup.js';
