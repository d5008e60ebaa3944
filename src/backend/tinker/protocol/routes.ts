/** Path prefix of every Tinker endpoint. */
export const TINKER_API_PREFIX = '/api/v1';

/**
 * The Tinker HTTP routes agentrl's client calls and `agentrl serve` answers (the routes of thinking-machines-lab/tinker
 * `src/tinker/resources/`), without
 * the {@link TINKER_API_PREFIX}. `POST` unless noted.
 */
export const TINKER_ROUTES = {
  clientConfig: 'client/config',
  clientDynamicConfig: 'client/dynamic_config',
  authToken: 'auth/token',
  /** `GET`. */
  healthz: 'healthz',
  /** `GET`. */
  serverCapabilities: 'get_server_capabilities',
  createSession: 'create_session',
  sessionHeartbeat: 'session_heartbeat',
  createModel: 'create_model',
  getInfo: 'get_info',
  unloadModel: 'unload_model',
  forwardBackward: 'forward_backward',
  forward: 'forward',
  optimStep: 'optim_step',
  saveWeights: 'save_weights',
  loadWeights: 'load_weights',
  saveWeightsForSampler: 'save_weights_for_sampler',
  createSamplingSession: 'create_sampling_session',
  asample: 'asample',
  retrieveFuture: 'retrieve_future',
  telemetry: 'telemetry',
} as const;

/** A route's full path, e.g. `tinkerPath('create_model')` → `/api/v1/create_model`. */
export function tinkerPath(route: (typeof TINKER_ROUTES)[keyof typeof TINKER_ROUTES]): string {
  return `${TINKER_API_PREFIX}/${route}`;
}
