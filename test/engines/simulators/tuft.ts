/**
 * TuFT (agentscope-ai/TuFT@102eefd: src/tuft/server.py, src/tuft/futures.py, src/tuft/loss_fn/), over the embedded
 * engine. Losses are token sums (`loss:sum`) and every Adam field including grad_clip_norm is honoured, as agentrl
 * serve does, so only the wire differs.
 */
import type { EngineSpec, SimAnswer } from './simulator.js';

const PROTOBUF = 'application/x-protobuf';

/** The TuFT simulator. */
export const tuft: EngineSpec = {
  // futures.py:451-490: a pending future is waited on 120 s, then TryAgainResponse.
  hold: { ms: 120_000, answer: 'try_again' },
  make() {
    return {
      // HTTPException bodies are {detail} (server.py, exceptions.py); a failed future is 422 `Future failed: …`
      // (server.py:590-608) so that the SDK does not retry it.
      error: (status, message, where): SimAnswer =>
        where === 'future' ? { status: 422, body: { detail: `Future failed: ${message}` } } : { status, body: { detail: message } },
      intercept(req) {
        const path = req.url.split('?')[0]!;
        // forward_backward takes protobuf only: any other Content-Type is 415 (server.py:305-331). There is no
        // /api/v1/forward route (the route list, server.py:143-842): forwards are forward_backward with forward_only.
        if (req.method === 'POST' && path === '/api/v1/forward_backward') {
          const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
          if (type !== PROTOBUF) return { status: 415, body: { detail: `Unsupported Content-Type '${type}'; expected ${PROTOBUF}` } };
        }
        if (path === '/api/v1/forward') return { status: 404, body: { detail: 'Not Found' } };
        return undefined;
      },
    };
  },
};
