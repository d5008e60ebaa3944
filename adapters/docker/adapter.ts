import { numberFlag, type SandboxAdapter } from '../../src/sandbox/adapter.js';
import type { DockerSandboxOptions } from './options.js';

/** `--backend docker`: a warm pool of hardened containers (see {@link dockerSandbox}). */
export const sandboxAdapter: SandboxAdapter<DockerSandboxOptions> = {
  name: 'docker',
  summary: 'a warm pool of hardened Docker containers',
  servable: true,
  flags: {
    image: { type: 'string', placeholder: '<name>', help: 'image (default agentrl-sandbox:local, see scripts/docker-image.sh)' },
    'pool-size': { type: 'string', placeholder: '<n>', help: 'warm containers' },
    cpus: { type: 'string', placeholder: '<n>', help: 'CPUs per container' },
    'pids-limit': { type: 'string', placeholder: '<n>', help: 'processes per container' },
    bind: { type: 'string', multiple: true, placeholder: '<spec>', help: 'extra bind mount host:container[:ro] (repeatable)' },
  },
  optionsFromFlags(values, common) {
    const poolSize = numberFlag(values, 'pool-size');
    const cpus = numberFlag(values, 'cpus');
    const pidsLimit = numberFlag(values, 'pids-limit');
    return {
      image: (values['image'] as string | undefined) ?? 'agentrl-sandbox:local',
      ...common,
      ...(poolSize === undefined ? {} : { poolSize }),
      ...(cpus === undefined ? {} : { cpus }),
      ...(pidsLimit === undefined ? {} : { pidsLimit }),
      binds: (values['bind'] as readonly string[] | undefined) ?? [],
    };
  },
  async create(options) {
    const { dockerSandbox } = await import('./index.js');
    const sandbox = dockerSandbox(options);
    await sandbox.ready();
    return sandbox;
  },
  capacity: (options) => options.poolSize ?? 2,
};
