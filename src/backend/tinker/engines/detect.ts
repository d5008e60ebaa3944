import { ConfigError } from '../../../errors/index.js';
import type { EngineName } from './profiles.js';

/** The `/client/config` flag by which `agentrl serve` names itself (other servers ignore unknown flags). */
export const AGENTRL_ENGINE_FLAG = 'agentrl_engine';

/** What `engine: 'auto'` concluded, and the warning to give when it only assumed. */
export interface DetectedEngine {
  readonly engine: EngineName;
  /** Set when nothing identified the server and hosted Tinker is assumed. */
  readonly warning?: string;
}

const keysOf = (b: Readonly<Record<string, unknown>>): string[] => Object.keys(b).sort();

/**
 * Tells the engine from what the server reveals at `POST /api/v1/client/config` (`answered`: whether it answered):
 * - `agentrl_engine: 'agentrl'` → `agentrl` (agentrl serve says so);
 * - exactly `{ pjwt_auth_enabled: false }` → SkyRL (`skyrl/tinker/api.py` `ClientConfigResponse` has that field only); its
 *   backend (jax, fsdp, megatron) is not revealed, and they differ in what they compute, so it must be named;
 * - `parallel_fwdbwd_chunks: false` with the sampling semaphore sizes → TuFT (`src/tuft/server.py` `client_config`);
 * - the sampling semaphore sizes without `parallel_fwdbwd_chunks` → open-rl (`src/server/gateway.py` `client_config`);
 * - anything else → hosted Tinker, with a warning.
 * @throws ConfigError (`engine`) for a SkyRL server, whose backend must be given.
 */
export function detectEngine(config: Readonly<Record<string, unknown>>, answered: boolean): DetectedEngine {
  if (config[AGENTRL_ENGINE_FLAG] === 'agentrl') return { engine: 'agentrl' };
  const keys = keysOf(config);
  if (answered && keys.length === 1 && config['pjwt_auth_enabled'] === false) {
    throw new ConfigError('tinkerBackend options', [
      {
        path: 'engine',
        message:
          "'auto': the server answers /client/config as SkyRL's Tinker API does, which does not say its backend; set engine to 'skyrl-jax', 'skyrl-fsdp' or 'skyrl-megatron' (the --backend it was started with)",
      },
    ]);
  }
  const semaphores =
    'sample_dispatch_bytes_semaphore_size' in config && 'inflight_response_bytes_semaphore_size' in config && !('proto_write_fwdbwd' in config);
  if (semaphores && config['parallel_fwdbwd_chunks'] === false) return { engine: 'tuft' };
  if (semaphores && !('parallel_fwdbwd_chunks' in config)) return { engine: 'open-rl' };
  return {
    engine: 'tinker',
    warning: `tinkerBackend engine 'auto': the server's /client/config does not identify its engine (${answered ? `flags: ${keys.join(', ') || 'none'}` : 'no /client/config'}); assuming hosted Tinker's semantics (token-sum losses, frozen samplers, every Adam field honoured). Set engine to say which it is (see docs/engines.md)`,
  };
}
