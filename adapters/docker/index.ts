/**
 * `agentrl/adapters/docker`: run model code in a warm pool of hardened Docker containers.
 * Build a local test image with `scripts/docker-image.sh`; see `docs/sandboxes.md`.
 */
export { dockerSandbox, containerSpec, SANDBOX_LABEL, type DockerSandbox } from './docker-sandbox.js';
export { DEFAULT_SANDBOX_ENV, type DockerSandboxOptions } from './options.js';
export type { ResolvedDockerOptions } from './options.js';
