/**
 * TuFT (agentscope-ai/TuFT@102eefd: src/tuft/server.py, src/tuft/futures.py, src/tuft/loss_fn/), over the embedded
 * engine. Losses are token sums (`loss:sum`) and every Adam field including grad_clip_norm is honoured, as agentrl
 * serve does, so only the wire differs.
 */
import type { ServeCaller } from '../../../apps/serve/tinker/index.js';
import { innerResult } from './own-futures.js';
import { innerMethods, type EngineSpec, type ServiceOverrides, type SimAnswer, type SimContext } from './simulator.js';

const PROTOBUF = 'application/x-protobuf';

/** The TuFT simulator. */
export const tuft: EngineSpec = {
  // futures.py:451-490: a pending future is waited on 120 s, then TryAgainResponse.
  hold: { ms: 120_000, answer: 'try_again' },
  make(ctx) {
    return {
      // HTTPException bodies are {detail} (server.py, exceptions.py); a failed future is 422 `Future failed: …`
      // (server.py:590-608) so that the SDK does not retry it; a sequence conflict keeps its 409 (l.609-612).
      error: (status, message, where): SimAnswer => {
        if (where !== 'future') return { status, body: { detail: message } };
        if (message.startsWith('Sequence conflict')) return { status: 409, body: { detail: `Failed to retrieve future: ${message}` } };
        return { status: 422, body: { detail: `Future failed: ${message}` } };
      },
      overrides: sequenceGuard(ctx),
      intercept(req) {
        const path = req.url.split('?')[0]!;
        // forward_backward takes protobuf only: any other Content-Type is 415 (server.py:305-331). There is no
        // /api/v1/forward route (the route list, server.py:143-842): forwards are forward_backward with forward_only.
        if (req.method === 'POST' && path === '/api/v1/forward_backward') {
          const type = String(req.headers['content-type'] ?? '')
            .split(';')[0]!
            .trim()
            .toLowerCase();
          if (type !== PROTOBUF) return { status: 415, body: { detail: `Unsupported Content-Type '${type}'; expected ${PROTOBUF}` } };
        }
        if (path === '/api/v1/forward') return { status: 404, body: { detail: 'Not Found' } };
        return undefined;
      },
    };
  },
};

type Op = 'forwardBackward' | 'forward' | 'optimStep' | 'saveWeights' | 'loadWeights' | 'saveWeightsForSampler';

/**
 * training_controller.py:379-398 (`_with_sequence_guard`): a model's training requests run one at a time (its
 * SequenceExecutor orders them by seq_id, sequence_executor.py); each checks `seq_id == next_seq_id` (from 1,
 * l.97) — else `Sequence conflict: expected N, got M` (409) — and `next_seq_id` advances only when the operation
 * succeeded, so after a failure the next request must reuse the failed one's seq_id.
 */
function sequenceGuard(ctx: SimContext): ServiceOverrides {
  const { inner, own } = ctx;
  const base = innerMethods(inner);
  const models = new Map<string, { next: number; tail: Promise<unknown> }>();
  const guard = <K extends Op>(op: K) =>
    ((body: { model_id: string; seq_id?: number | null | undefined }, caller: ServeCaller) => {
      const m = models.get(body.model_id) ?? { next: 1, tail: Promise.resolve() };
      models.set(body.model_id, m);
      const seq = body.seq_id ?? null;
      const work = m.tail.then(async () => {
        if (seq !== null && seq !== m.next) throw new Error(`Sequence conflict: expected ${m.next}, got ${seq}.`);
        const run = base[op] as (b: unknown, c: ServeCaller) => { request_id: string };
        const res = await innerResult(inner, caller, run({ ...body, seq_id: null }, caller).request_id);
        if (seq !== null) m.next += 1;
        return res;
      });
      m.tail = work.catch(() => undefined);
      return { request_id: own.create(work), model_id: body.model_id };
    }) as unknown as Required<ServiceOverrides>[K];
  return {
    forwardBackward: guard('forwardBackward'),
    forward: guard('forward'),
    optimStep: guard('optimStep'),
    saveWeights: guard('saveWeights'),
    loadWeights: guard('loadWeights'),
    saveWeightsForSampler: guard('saveWeightsForSampler'),
  };
}
