import { afterEach, describe, expect, it } from 'vitest';
import {
  BackendInputError,
  BackendRequestError,
  BackendUnavailableError,
  tinkerBackend,
  type Datum,
  type TinkerBackend,
  type TinkerBackendOptions,
} from 'agentrl';
import { LOCAL_MODEL_DIR } from '../../helpers/local-renderer.js';
import { FakeTinker, type Reply, type SeenRequest } from './fake-tinker-server.js';

// Issue 37 item 5: a request the server answered (refused) reached it and leaves no seq_id hole; whether its id was used
// up is the engine's rule (EngineProfile.seq). Only a request with no answer after its retries can leave a hole.

const datum = (T: number): Datum => ({
  modelInput: Array.from({ length: T }, (_, i) => i + 1),
  targetTokens: Array.from({ length: T }, (_, i) => i + 2),
  logprobs: new Array<number>(T).fill(-1),
  advantages: new Array<number>(T).fill(1),
  mask: new Array<number>(T).fill(1),
});
const IS = { kind: 'importance_sampling' } as const;

let server: FakeTinker | undefined;
let backend: TinkerBackend | undefined;
afterEach(async () => {
  await backend?.close();
  await server?.close().catch(() => undefined);
  backend = undefined;
  server = undefined;
});

function make(extra: Partial<TinkerBackendOptions> = {}): TinkerBackend {
  backend = tinkerBackend({
    baseUrl: server!.url,
    apiKey: 'tml-test',
    baseModel: 'fake/model',
    renderer: LOCAL_MODEL_DIR,
    maxContextTokens: 512,
    wireFormat: 'json',
    engine: 'tinker',
    ...extra,
    retry: { initialDelayMs: 10, maxDelayMs: 20, tryAgainDelayMs: 10, budgetMs: 400, ...extra.retry },
  });
  return backend;
}

const seqOf = (r: SeenRequest) => r.json?.['seq_id'];
const modelOps = (s: FakeTinker) =>
  s.requests
    .filter((r) => ['/api/v1/forward_backward', '/api/v1/optim_step', '/api/v1/save_weights_for_sampler'].includes(r.path))
    .map((r) => [seqOf(r), r.path.slice(8)]);

/** Refuses the `n`-th forward_backward submit with `reply` (once). */
function refuseNth(n: number, reply: Reply): (r: SeenRequest) => Reply | undefined {
  let seen = 0;
  return (r) => {
    if (r.path !== '/api/v1/forward_backward') return undefined;
    seen += 1;
    return seen === n ? reply : undefined;
  };
}

describe('tinkerBackend after a request the server refused', () => {
  const refusals: [string, Reply, new (...a: never[]) => Error][] = [
    ['400 {detail}: longer than the context', { status: 400, json: { detail: 'sequence of 700 tokens exceeds max_seq_len 512' } }, BackendRequestError],
    [
      '422 {detail: [...]} (FastAPI validation)',
      { status: 422, json: { detail: [{ loc: ['body', 'forward_backward_input', 'data', 0], msg: 'field required', type: 'missing' }] } },
      BackendInputError,
    ],
    [
      '400 {error, category: user} (agentrl serve)',
      { status: 400, json: { error: 'data[0]: 700 tokens exceed the context of 512', category: 'user' } },
      BackendInputError,
    ],
    ['413 {detail} (TuFT: body too large)', { status: 413, json: { detail: 'request body of 80 MB exceeds 64 MB' } }, BackendRequestError],
  ];

  for (const [name, reply, errorClass] of refusals) {
    it(`${name}: the call fails with the server's message, the next request takes the same seq_id, the run goes on`, async () => {
      server = await FakeTinker.start({ hook: refuseNth(2, reply) });
      const b = make();
      await b.forwardBackward([datum(3)], IS);
      const refused = await b.forwardBackward([datum(4)], IS).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(errorClass);
      expect((refused as Error).message).not.toMatch(/never reached|no answer/);
      // Sent back to back, without awaiting: they still take their ids in call order.
      const [step, fb, sampler] = await Promise.all([b.optimStep({ learningRate: 0.1 }), b.forwardBackward([datum(2)], IS), b.saveWeightsForSampler()]);
      expect(step.metrics['learning_rate']).toBe(0.1);
      expect(fb.logprobs[0]).toHaveLength(2);
      expect(sampler).toBeDefined();
      expect(modelOps(server)).toEqual([
        [1, 'forward_backward'],
        [2, 'forward_backward'], // refused: not used up (every profiled engine's rule)
        [2, 'optim_step'],
        [3, 'forward_backward'],
        [4, 'save_weights_for_sampler'],
      ]);
      expect(server.seqs.get('model-0')).toEqual([1, 2, 3, 4]); // no hole on the server
    });
  }

  it('a 409 (the id is taken on the server) uses the id up: the next request takes the one after', async () => {
    server = await FakeTinker.start({ hook: refuseNth(2, { status: 409, json: { detail: 'Training request sequence number was reused' } }) });
    const b = make();
    await b.forwardBackward([datum(3)], IS);
    const e = await b.forwardBackward([datum(3)], IS).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BackendRequestError);
    expect((e as BackendRequestError).status).toBe(409);
    await b.optimStep({ learningRate: 0.1 });
    expect(modelOps(server)).toEqual([
      [1, 'forward_backward'],
      [2, 'forward_backward'],
      [3, 'optim_step'],
    ]);
  });

  it('a request with no answer after its retries (connection dropped every time) may or may not have reached the server: the model is lost', async () => {
    server = await FakeTinker.start({ hook: (r) => (r.path === '/api/v1/forward_backward' && seqOf(r) === 2 ? { hangUp: true } : undefined) });
    const b = make();
    await b.forwardBackward([datum(3)], IS);
    const [fb, step] = await Promise.allSettled([b.forwardBackward([datum(3)], IS), b.optimStep({ learningRate: 0.1 })]);
    expect((fb as PromiseRejectedResult).reason).toBeInstanceOf(BackendUnavailableError);
    expect(((step as PromiseRejectedResult).reason as Error).message).toMatch(/seq_id 2 \(forward_backward\) got no answer from the server after its retries/);
    expect(server.seen('/api/v1/optim_step')).toHaveLength(0);
    expect(server.seen('/api/v1/forward_backward').length).toBeGreaterThan(2); // retried
  });

  it("open-rl: a failed future's 400 {type: RequestFailedResponse, error_message} is that error at once, not a retried bare 400", async () => {
    let polls = 0;
    server = await FakeTinker.start({
      hook: (r, s) => {
        if (r.path !== '/api/v1/retrieve_future') return undefined;
        const f = s.futures.get(String(r.json?.['request_id']));
        if (f?.op !== 'forward_backward' || f.body.json?.['seq_id'] !== 2) return undefined;
        polls += 1;
        return { status: 400, json: { type: 'RequestFailedResponse', error_message: 'Loss dro not supported' } };
      },
    });
    const b = make({ engine: 'open-rl' });
    await b.forwardBackward([datum(3)], IS);
    const e = await b.forwardBackward([datum(3)], IS).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BackendRequestError);
    expect((e as Error).message).toMatch(/Loss dro not supported/);
    expect(polls).toBe(1);
    await b.optimStep({ learningRate: 0.1 });
    expect(modelOps(server).at(-1)).toEqual([3, 'optim_step']); // accepted and failed: its id was used
  });

  it('TuFT: a request that failed in its future did not use up its id either (the next one takes it again)', async () => {
    server = await FakeTinker.start({
      protobufBodies: 'accept',
      hook: (r, s) => {
        if (r.path === '/api/v1/retrieve_future') {
          const f = s.futures.get(String(r.json?.['request_id']));
          if (f?.op === 'forward_backward' && f.body.json?.['seq_id'] === 2) return { status: 422, json: { detail: 'Future failed: CUDA out of memory' } };
        }
        // TuFT's sequence guard expects 2 again: accept it (the fake's own dedupe is SkyRL's rule).
        if (r.path === '/api/v1/optim_step' && seqOf(r) === 2) return { json: { request_id: s.addFuture('optim_step', r) } };
        return undefined;
      },
    });
    const b = make({ engine: 'tuft', wireFormat: 'auto' });
    await b.forwardBackward([datum(3)], IS);
    const e = await b.forwardBackward([datum(3)], IS).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BackendInputError);
    expect((e as Error).message).toMatch(/out of memory/);
    await b.optimStep({ learningRate: 0.1 });
    expect(modelOps(server)).toEqual([
      [1, 'forward_backward'],
      [2, 'forward_backward'],
      [2, 'optim_step'],
    ]);
  });
});
