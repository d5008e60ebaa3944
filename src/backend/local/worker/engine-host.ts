/**
 * The worker-thread side of {@link workerLocalBackend}: one `localBackend` per worker, answering the messages of
 * `worker-backend.ts`. Samplers live here and are named by integer handles; an abort is a `cancel` message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SamplingClient } from '../../types.js';
import { AgentRLError } from '../../../errors/base.js';
import { localBackend, type LocalBackendOptions } from '../local-backend.js';
import { InternalError } from '../../../errors/internal-error.js';

interface Call {
  readonly id: number;
  readonly op: string;
  readonly args: readonly unknown[];
}

/** Serialised error: enough to rebuild the typed error on the other side. */
export interface WireError {
  readonly message: string;
  readonly name: string;
  readonly code?: string;
  readonly field?: string;
}

const port = parentPort!;
const backend = localBackend((workerData as { options: LocalBackendOptions }).options);
const samplers = new Map<number, SamplingClient>();
const aborts = new Map<number, AbortController>();
let nextSampler = 1;

function sampler(h: unknown): SamplingClient {
  const s = samplers.get(h as number);
  if (!s) throw Object.assign(new Error('sampler: this sampler was released'), { wireCode: 'BACKEND_INPUT', wireField: 'sampler' });
  return s;
}

async function run(c: Call): Promise<unknown> {
  // biome-ignore lint/suspicious/noExplicitAny: the arguments the main thread posted for this op, passed through to the backend method of that op
  const a = c.args as any[];
  switch (c.op) {
    case 'forwardBackward':
      return backend.forwardBackward(a[0], a[1], a[2]);
    case 'optimStep':
      return backend.optimStep(a[0]);
    case 'saveWeightsForSampler': {
      const h = nextSampler++;
      samplers.set(h, await backend.saveWeightsForSampler());
      return h;
    }
    case 'saveState':
      return backend.saveState(a[0]);
    case 'loadState':
      return backend.loadState(a[0], a[1]);
    case 'computeLogprobs':
      return backend.computeLogprobs(a[0]);
    case 'close':
      for (const s of samplers.values()) s.release?.();
      samplers.clear();
      return backend.close();
    case 'sample': {
      const ac = new AbortController();
      aborts.set(c.id, ac);
      try {
        return await sampler(a[0]).sample(a[1], { ...a[2], signal: ac.signal });
      } finally {
        aborts.delete(c.id);
      }
    }
    case 'samplerLogprobs':
      return sampler(a[0]).computeLogprobs(a[1]);
    case 'release':
      samplers.get(a[0])?.release?.();
      samplers.delete(a[0]);
      return undefined;
    default:
      throw new InternalError(`unknown op ${c.op}`);
  }
}

port.on('message', (m: Call | { op: 'cancel'; target: number; reason?: WireError }) => {
  if (m.op === 'cancel') {
    const { target, reason } = m as { target: number; reason?: WireError };
    const e = Object.assign(new Error(reason?.message ?? 'the sampling call was aborted'), {
      name: reason?.name ?? 'AbortError',
      wireCode: reason?.code,
      wireField: reason?.field,
    });
    aborts.get(target)?.abort(e);
    return;
  }
  const c = m as Call;
  run(c).then(
    (value) => port.postMessage({ id: c.id, ok: true, value }),
    (e: unknown) => {
      const err = e as { message?: string; name?: string; code?: string; field?: string; wireCode?: string; wireField?: string };
      const wire: WireError = {
        message: err?.message ?? String(e),
        name: err?.name ?? 'Error',
        ...(AgentRLError.isInstance(e) ? { code: (e as AgentRLError).code } : err?.wireCode ? { code: err.wireCode } : {}),
        ...(typeof err?.field === 'string' ? { field: err.field } : err?.wireField ? { field: err.wireField } : {}),
      };
      port.postMessage({ id: c.id, ok: false, error: wire });
    },
  );
});
port.postMessage({ ready: true });
