/** What `agentrl serve` answers at `POST /api/v1/client/config` (Tinker SDK ≥ 0.18), built from what it does. */
export interface ClientConfigFacts {
  /** Largest request body the server reads, bytes. */
  readonly maxBodyBytes: number;
  /** Requests the server handles at once. */
  readonly maxInFlight: number;
}

/**
 * The flags the Tinker SDK reads at start, answered truthfully for this server (`reference/tinker-http.md`,
 * "Official SDK behaviour"):
 * - `pjwt_auth_enabled: false` — no `/auth/token` exchange here; the API key itself is checked on every call;
 * - `proto_write_fwdbwd: true` — `forward_backward` takes `application/x-protobuf` bodies (and JSON);
 * - `proto_compress_fwdbwd: false` — no zstd: a body with a `Content-Encoding` is refused (415);
 * - `fwdbwd_max_chunk_len: 1024`, `fwdbwd_max_chunk_bytes_count` — a quarter of the body limit, so a chunk the
 *   SDK sizes by its protobuf estimate also fits as JSON (JSON numbers take about 3× their 4 protobuf bytes);
 * - `sample_max_concurrent_requests` — the server's in-flight request limit;
 * - `parallel_fwdbwd_chunks: true` — chunks may arrive in any order (they run in `seq_id` order);
 * - `use_pyqwest_transport: false`, `create_model_via_load_weights: false` — no such server-side support.
 */
export function clientConfig(f: ClientConfigFacts): Record<string, unknown> {
  return {
    pjwt_auth_enabled: false,
    credential_default_source: 'api_key',
    proto_write_fwdbwd: true,
    proto_compress_fwdbwd: false,
    parallel_fwdbwd_chunks: true,
    fwdbwd_max_chunk_len: 1024,
    fwdbwd_max_chunk_bytes_count: Math.floor(f.maxBodyBytes / 4),
    sample_max_concurrent_requests: f.maxInFlight,
    use_pyqwest_transport: false,
    create_model_via_load_weights: false,
  };
}

/** `POST /api/v1/client/dynamic_config` (SDK ≥ 0.25): nothing here changes while the server runs. */
export function clientDynamicConfig(): Record<string, unknown> {
  return { refresh_interval_sec: 300 };
}
