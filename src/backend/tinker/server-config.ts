import { BackendRequestError } from '../../errors/index.js';
import { jsonOf, type TinkerHttp } from './http.js';
import { tinkerPath } from './protocol/routes.js';

/**
 * The Tinker protocol version this client speaks, sent as `sdk_version` (`client/config`, `create_session`).
 * Servers gate features and deprecation notices on the official SDK's version string, so an own string
 * (`agentrl-0.1.0`) would parse as unknown or ancient there; this client implements SDK 0.25's wire behaviour
 * (protobuf bodies and results, `forward_only`, `overwrite: false`) and says so. It identifies itself in
 * `User-Agent: agentrl/<version>`.
 */
export const TINKER_PROTOCOL_VERSION = '0.25.0';

/** The flags of `POST /api/v1/client/config` this client follows (defaults are the SDK's, for servers without it). */
export interface TinkerServerConfig {
  /** Whether the endpoint answered (false: a server before SDK 0.18, defaults apply). */
  readonly answered: boolean;
  /** Exchange the API key for a JWT at `POST /api/v1/auth/token` and send that instead. */
  readonly pjwtAuth: boolean;
  /** The server reads protobuf `forward_backward` bodies (absent: unknown; `auto` wire format tries protobuf). */
  readonly protoWrite: boolean | undefined;
  /** Datums per `forward_backward` chunk. */
  readonly maxChunkLen: number;
  /** Estimated protobuf bytes per `forward_backward` chunk. */
  readonly maxChunkBytes: number;
  /** Sampling requests in flight per sampler. */
  readonly sampleMaxConcurrent: number;
  /** The answer as sent (empty when the endpoint did not answer): `engine: 'auto'` reads the engine from it. */
  readonly raw: Readonly<Record<string, unknown>>;
}

const DEFAULTS: TinkerServerConfig = {
  answered: false,
  pjwtAuth: false,
  protoWrite: undefined,
  maxChunkLen: 1024,
  maxChunkBytes: 5_000_000,
  sampleMaxConcurrent: 2000,
  raw: {},
};

const posInt = (v: unknown, d: number) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : d);

/**
 * `POST /api/v1/client/config` `{sdk_version}`. A 404 (servers before SDK 0.18, or without it) gives the SDK's
 * defaults; other failures are thrown (as the SDK fails client construction).
 * @throws BackendRequestError / BackendUnavailableError / BackendAuthError from the call.
 */
export async function fetchServerConfig(http: TinkerHttp): Promise<TinkerServerConfig> {
  let body: unknown;
  try {
    body = jsonOf(await http.call('client_config', tinkerPath('client/config'), { json: { sdk_version: TINKER_PROTOCOL_VERSION } }, { credential: false }));
  } catch (e) {
    if (e instanceof BackendRequestError && (e.status === 404 || e.status === 405)) return DEFAULTS;
    throw e;
  }
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return {
    answered: true,
    pjwtAuth: b['pjwt_auth_enabled'] === true,
    protoWrite: typeof b['proto_write_fwdbwd'] === 'boolean' ? b['proto_write_fwdbwd'] : undefined,
    maxChunkLen: posInt(b['fwdbwd_max_chunk_len'], DEFAULTS.maxChunkLen),
    maxChunkBytes: posInt(b['fwdbwd_max_chunk_bytes_count'], DEFAULTS.maxChunkBytes),
    sampleMaxConcurrent: posInt(b['sample_max_concurrent_requests'], DEFAULTS.sampleMaxConcurrent),
    raw: b,
  };
}
