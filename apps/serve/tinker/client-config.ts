import { AGENTRL_ENGINE_FLAG } from 'agentrl/internal';

/** What `agentrl serve` answers at `POST /api/v1/client/config` (Tinker SDK ≥ 0.18), built from what it does. */
export interface ClientConfigFacts {
  /** Largest request body the server reads, bytes. */
  readonly maxBodyBytes: number;
  /** Requests the server handles at once. */
  readonly maxInFlight: number;
  /**
   * Ask SDK clients to zstd-compress `forward_backward` bodies (`proto_compress_fwdbwd`); zstd bodies are accepted
   * either way. @default false
   */
  readonly zstdBodies?: boolean;
  /** The server exchanges API keys for access tokens at `POST /api/v1/auth/token`. @default false */
  readonly jwtAuth?: boolean;
}

/**
 * The flags the Tinker SDK reads at start, answered truthfully for this server (thinking-machines-lab/tinker
 * `src/tinker/types/client_config_response.py`):
 * - `pjwt_auth_enabled` — true when the server has API keys and issues access tokens (`POST /api/v1/auth/token`,
 *   `{}` with the key → `{jwt}`); the key itself stays accepted on every call (SDKs before 0.18 never exchange);
 * - `proto_write_fwdbwd: true` — `forward_backward` takes `application/x-protobuf` bodies (and JSON);
 * - `proto_compress_fwdbwd` — `zstdBodies`: whether the SDK should zstd-compress them (it saves bytes across a network and
 *   costs CPU on both ends, so it is off by default); `Content-Encoding: zstd` bodies are decoded either way, other
 *   encodings are refused (415);
 * - `fwdbwd_max_chunk_len: 1024`, `fwdbwd_max_chunk_bytes_count` — a quarter of the body limit, so a chunk the
 *   SDK sizes by its protobuf estimate also fits as JSON (JSON numbers take about 3× their 4 protobuf bytes);
 * - `sample_max_concurrent_requests` — the server's in-flight request limit;
 * - `parallel_fwdbwd_chunks: true` — chunks may arrive in any order (they run in `seq_id` order);
 * - `use_pyqwest_transport: false`, `create_model_via_load_weights: false`, `sample_use_retrieve_futures: false`
 *   (SDK ≥ 0.26: no `/api/v1/retrieve_futures`; `types/client_config_response.py`) — no such server-side support;
 * - `agentrl_engine: 'agentrl'` — names this server for `tinkerBackend({ engine: 'auto' })` (SDKs ignore unknown flags).
 */
export function clientConfig(f: ClientConfigFacts): Record<string, unknown> {
  return {
    pjwt_auth_enabled: f.jwtAuth ?? false,
    credential_default_source: 'api_key',
    proto_write_fwdbwd: true,
    proto_compress_fwdbwd: f.zstdBodies ?? false,
    parallel_fwdbwd_chunks: true,
    fwdbwd_max_chunk_len: 1024,
    fwdbwd_max_chunk_bytes_count: Math.floor(f.maxBodyBytes / 4),
    sample_max_concurrent_requests: f.maxInFlight,
    use_pyqwest_transport: false,
    create_model_via_load_weights: false,
    sample_use_retrieve_futures: false,
    [AGENTRL_ENGINE_FLAG]: 'agentrl',
  };
}

/**
 * `POST /api/v1/client/dynamic_config` (SDK ≥ 0.25): nothing here changes while the server runs.
 * `sample_cancel_enabled: false` (SDK ≥ 0.26, `types/client_dynamic_config_response.py`): there is no `cancel_future`
 * route; an abandoned sample stops when its session expires.
 */
export function clientDynamicConfig(): Record<string, unknown> {
  return { refresh_interval_sec: 300, sample_cancel_enabled: false };
}
