import { afterEach, describe, expect, it } from 'vitest';
import {
  BackendAuthError,
  BackendInputError,
  BackendRequestError,
  BackendUnavailableError,
  tinkerBackend,
  type Datum,
  type TinkerBackend,
  type TinkerBackendOptions,
} from 'agentrl';
import { Agent, request, type Dispatcher } from 'undici';
import { LOCAL_MODEL_DIR } from '../../helpers/local-renderer.js';
import { FakeTinker, type Reply, type SeenRequest } from './fake-tinker-server.js';

// Faults on real sockets: every server here is a scripted node:http server on 127.0.0.1 (fake-tinker-server.ts).

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
    ...extra,
    retry: { initialDelayMs: 20, maxDelayMs: 200, tryAgainDelayMs: 20, budgetMs: 2_000, ...extra.retry },
  });
  return backend;
}

/** The future op a `retrieve_future` request polls. */
const polled = (s: FakeTinker, r: SeenRequest) => (r.path === '/api/v1/retrieve_future' ? s.futures.get(String(r.json?.['request_id']))?.op : undefined);

const timeouts = () => process.getActiveResourcesInfo().filter((x) => x === 'Timeout').length;

describe('tinkerBackend faults', () => {
  it('server killed in the middle of a forward_backward → BackendUnavailableError naming the URL, no hang, no timers left', async () => {
    let pollArrived!: () => void;
    const polling = new Promise<void>((r) => (pollArrived = r));
    // The forward_backward poll is held (never answered), as a server busy computing.
    server = await FakeTinker.start({
      hook: (r, s) => {
        if (polled(s, r) === 'forward_backward') {
          pollArrived();
          return new Promise<Reply>(() => undefined);
        }
        return undefined;
      },
    });
    const baseline = timeouts();
    const b = make({ timeouts: { heartbeatMs: 50 } });
    await b.connect();
    const fb = b.forwardBackward([datum(4)], IS);
    const outcome = fb.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await polling;
    const url = server.url;
    await server.kill();
    server = undefined;
    const err = await outcome;
    expect(err).toBeInstanceOf(BackendUnavailableError);
    expect((err as BackendUnavailableError).url).toContain(url);
    expect((err as BackendUnavailableError).code).toBe('BACKEND_UNAVAILABLE');
    await b.close();
    backend = undefined;
    expect(timeouts()).toBeLessThanOrEqual(baseline);
  });

  it('a hung server (polls held, never answered) → BackendUnavailableError after timeouts.silenceMs', async () => {
    server = await FakeTinker.start({ hook: (r, s) => (polled(s, r) === 'forward_backward' ? new Promise<Reply>(() => undefined) : undefined) });
    const b = make({ timeouts: { pollMs: 100, silenceMs: 2_500 } });
    const err = await b.forwardBackward([datum(2)], IS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendUnavailableError);
    expect((err as Error).message).toMatch(/no answer to any poll for 2500 ms/);
    // It kept polling while the server held the polls: more than one poll went out.
    expect(server.seen('/api/v1/retrieve_future').filter((r) => polled(server!, r) === 'forward_backward').length).toBeGreaterThan(1);
  });

  it('sends every request through an injected dispatcher and leaves it open on close()', async () => {
    server = await FakeTinker.start();
    let dispatched = 0;
    class CountingAgent extends Agent {
      override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        dispatched += 1;
        return super.dispatch(opts, handler);
      }
    }
    const agent = new CountingAgent();
    try {
      const b = make({ dispatcher: agent });
      await b.optimStep({ learningRate: 0.1 });
      expect(dispatched).toBe(server.requests.length);
      await b.close();
      const res = await request(`${server.url}/api/v1/healthz`, { dispatcher: agent });
      await res.body.dump();
      expect(dispatched).toBe(server.requests.length);
    } finally {
      await agent.close();
    }
  });

  it('waits through `try_again` answers for 5 s, then returns the result', async () => {
    let first: number | undefined;
    let tries = 0;
    server = await FakeTinker.start({
      hook: (r, s) => {
        if (polled(s, r) !== 'forward_backward') return undefined;
        first ??= Date.now();
        if (Date.now() - first < 5_000) {
          tries += 1;
          return { json: { type: 'try_again', request_id: r.json!['request_id'], queue_state: 'active' } };
        }
        return undefined;
      },
    });
    const b = make({ retry: { tryAgainDelayMs: 100, budgetMs: 1_000 } });
    const t0 = Date.now();
    const fb = await b.forwardBackward([datum(3)], IS);
    expect(fb.logprobs).toEqual([[-0.5, -0.5, -0.5]]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(4_900);
    expect(tries).toBeGreaterThan(5);
  });

  it('polls again after 408, `complete_metadata` and a client-side poll timeout', async () => {
    let n = 0;
    server = await FakeTinker.start({
      hook: (r, s) => {
        if (polled(s, r) !== 'optim_step') return undefined;
        n += 1;
        if (n === 1) return { status: 408, json: { detail: 'timeout', queue_state: 'active' } };
        if (n === 2) return { json: { status: 'complete_metadata', response_payload_size: 10 } };
        if (n === 3) return new Promise<Reply>((res) => setTimeout(() => res({ status: 408, json: {} }), 1_500));
        return undefined;
      },
    });
    const b = make({ timeouts: { pollMs: 500 }, retry: { budgetMs: 100 } });
    const step = await b.optimStep({ learningRate: 0.01 });
    expect(step.metrics['grad_norm:mean']).toBe(0.5);
    expect(n).toBe(4);
    const polls = server.seen('/api/v1/retrieve_future').filter((r) => polled(server!, r) === 'optim_step');
    expect(polls.map((r) => r.headers['x-tinker-request-iteration'])).toEqual(['0', '1', '2', '3']);
    expect(polls.every((r) => r.headers['x-tinker-request-type'] === 'OptimStep')).toBe(true);
  });

  it('410 (expired future) → resubmits the original request once, with the same seq_id and body', async () => {
    let expired = 0;
    server = await FakeTinker.start({
      hook: (r, s) => {
        if (polled(s, r) === 'forward_backward' && expired === 0) {
          expired += 1;
          return { status: 410, json: { detail: 'promise expired' } };
        }
        return undefined;
      },
    });
    const b = make();
    const fb = await b.forwardBackward([datum(2)], IS);
    expect(fb.logprobs).toEqual([[-0.5, -0.5]]);
    const submits = server.seen('/api/v1/forward_backward');
    expect(submits).toHaveLength(2);
    expect(submits[1]!.raw.equals(submits[0]!.raw)).toBe(true);
    expect(submits[1]!.json!['seq_id']).toBe(1);
  });

  it('a future that keeps expiring fails with BackendRequestError (410) after retry.max410 resubmits', async () => {
    server = await FakeTinker.start({ hook: (r, s) => (polled(s, r) === 'forward_backward' ? { status: 410, json: {} } : undefined) });
    const b = make({ retry: { max410: 2 } });
    const err = await b.forwardBackward([datum(2)], IS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendRequestError);
    expect((err as BackendRequestError).status).toBe(410);
    expect(server.seen('/api/v1/forward_backward')).toHaveLength(3);
  });

  it('concurrent calls reach the server in call order, one seq_id each, even when submits answer slowly', async () => {
    let slow = true;
    server = await FakeTinker.start({
      hook: async (r) => {
        // The first forward_backward submit answers late: a client that did not wait its turn would reorder.
        if (r.path === '/api/v1/forward_backward' && slow) {
          slow = false;
          await new Promise((res) => setTimeout(res, 300));
        }
        return undefined;
      },
    });
    const b = make({ maxChunkDatums: 2 });
    await b.connect();
    const calls = [
      b.forwardBackward([datum(2), datum(3), datum(4)], IS), // two chunks: seq 1, 2
      b.optimStep({ learningRate: 0.1 }), // 3
      b.forwardBackward([datum(5)], IS), // 4
      b.saveWeightsForSampler(), // 5
      b.computeLogprobs([1, 2, 3]), // 6
      b.optimStep({ learningRate: 0.2 }), // 7
    ];
    const [fb1] = (await Promise.all(calls)) as [Awaited<ReturnType<TinkerBackend['forwardBackward']>>];
    expect(fb1.logprobs.map((l) => l.length)).toEqual([2, 3, 4]);
    expect(server.seqs.get('model-0')).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const ops = server.requests
      .filter((r) => r.json?.['seq_id'] !== undefined && r.path !== '/api/v1/asample')
      .map((r) => [r.json!['seq_id'], r.path.replace('/api/v1/', '')]);
    expect(ops).toEqual([
      [1, 'forward_backward'],
      [2, 'forward_backward'],
      [3, 'optim_step'],
      [4, 'forward_backward'],
      [5, 'save_weights_for_sampler'],
      [6, 'forward'],
      [7, 'optim_step'],
    ]);
    expect((server.seen('/api/v1/optim_step')[1]!.json!['adam_params'] as { learning_rate: number }).learning_rate).toBe(0.2);
  });

  it('a 409 (seq_id reused with other content) is refused with BackendRequestError and not retried', async () => {
    server = await FakeTinker.start({
      hook: (r) => (r.path === '/api/v1/optim_step' ? { status: 409, json: { detail: 'Training request sequence number was reused' } } : undefined),
    });
    const b = make();
    const err = await b.optimStep({ learningRate: 0.1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendRequestError);
    expect((err as BackendRequestError).status).toBe(409);
    expect((err as Error).message).toMatch(/reused/);
    expect(server.seen('/api/v1/optim_step')).toHaveLength(1);
  });

  it('a submission that gets no answer after its retries marks the model lost: later calls fail at once, loadState() continues on a fresh model', async () => {
    server = await FakeTinker.start({
      hook: (r) => (r.path === '/api/v1/optim_step' ? { status: 503, raw: Buffer.from('upstream down'), contentType: 'text/plain' } : undefined),
    });
    const b = make({ retry: { budgetMs: 300, initialDelayMs: 10, maxDelayMs: 20 } });
    await b.forwardBackward([datum(2)], IS);
    const [step, fb] = await Promise.allSettled([b.optimStep({ learningRate: 0.1 }), b.forwardBackward([datum(2)], IS)]);
    expect((step as PromiseRejectedResult).reason).toBeInstanceOf(BackendUnavailableError);
    const lost = (fb as PromiseRejectedResult).reason as BackendRequestError;
    expect(lost).toBeInstanceOf(BackendRequestError);
    expect(lost.message).toMatch(/seq_id 2 \(optim_step\) got no answer from the server after its retries/);
    // The forward_backward queued behind the unanswered optim_step was never sent (it would wait for seq 2 forever).
    expect(server.seen('/api/v1/forward_backward')).toHaveLength(1);
    await b.loadState('tinker://model-0/weights/w');
    await b.forwardBackward([datum(2)], IS);
    expect(server.seqs.get('model-1')).toEqual([1, 2]);
  });

  it('retries a submit answered 429 (honouring retry-after-ms), 503 and 402, keeping one idempotency key', async () => {
    let n = 0;
    server = await FakeTinker.start({
      hook: (r) => {
        if (r.path !== '/api/v1/optim_step') return undefined;
        n += 1;
        if (n === 1) return { status: 429, json: {}, headers: { 'retry-after-ms': '50' } };
        if (n === 2) return { status: 503, raw: Buffer.from('upstream down'), contentType: 'text/plain' };
        if (n === 3) return { status: 402, json: { detail: 'billing' }, headers: { 'retry-after-ms': '20' } };
        return undefined;
      },
    });
    const b = make();
    await b.optimStep({ learningRate: 0.1 });
    const submits = server.seen('/api/v1/optim_step');
    expect(submits).toHaveLength(4);
    expect(new Set(submits.map((s) => s.headers['x-idempotency-key'])).size).toBe(1);
  });

  it('maps failures to typed errors: user → BackendInputError, server → BackendRequestError, SkyRL {detail}, 401', async () => {
    let mode = 'user';
    server = await FakeTinker.start({
      hook: (r, s) => {
        if (polled(s, r) !== 'forward_backward') return undefined;
        if (mode === 'user') return { json: { error: 'token 99999 out of vocabulary', category: 'user' } };
        if (mode === 'server') return { json: { error: 'worker crashed', category: 'server' } };
        if (mode === 'skyrl400') return { status: 400, json: { detail: 'Unknown model' } };
        return { status: 500, json: { detail: 'Unknown error' } };
      },
    });
    const b = make();
    const e1 = await b.forwardBackward([datum(2)], IS).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(BackendInputError);
    expect((e1 as Error).message).toMatch(/out of vocabulary/);
    mode = 'server';
    const e2 = await b.forwardBackward([datum(2)], IS).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(BackendRequestError);
    expect((e2 as BackendRequestError).category).toBe('server');
    mode = 'skyrl400';
    const e3 = await b.forwardBackward([datum(2)], IS).catch((e: unknown) => e);
    expect((e3 as BackendRequestError).status).toBe(400);
    mode = 'skyrl500';
    const e4 = await b.forwardBackward([datum(2)], IS).catch((e: unknown) => e);
    expect((e4 as BackendRequestError).status).toBe(500);
    expect((e4 as Error).message).toMatch(/Unknown error/);
    await b.close();
    await server.close();

    server = await FakeTinker.start({ hook: (r) => (r.path === '/api/v1/create_session' ? { status: 401, json: { detail: 'bad key' } } : undefined) });
    const e5 = await make()
      .connect()
      .catch((e: unknown) => e);
    expect(e5).toBeInstanceOf(BackendAuthError);
    expect((e5 as BackendAuthError).status).toBe(401);
  });

  it('tolerates up to retry.max400 bare 400 answers to a poll, then fails', async () => {
    let bare = 2;
    server = await FakeTinker.start({
      hook: (r, s) => (polled(s, r) === 'optim_step' && bare-- > 0 ? { status: 400, raw: new Uint8Array(), contentType: 'text/plain' } : undefined),
    });
    const b = make({ retry: { max400: 2 } });
    await expect(b.optimStep({ learningRate: 0.1 })).resolves.toBeDefined();
    bare = 3;
    const err = await b.optimStep({ learningRate: 0.1 }).catch((e: unknown) => e);
    expect((err as BackendRequestError).status).toBe(400);
  });

  it('sends heartbeats with the session id until close(), then none', async () => {
    server = await FakeTinker.start();
    const b = make({ timeouts: { heartbeatMs: 30 } });
    await b.connect();
    const beats = () => server!.seen('/api/v1/session_heartbeat').length;
    while (beats() < 3) await new Promise((r) => setTimeout(r, 20));
    expect(server.seen('/api/v1/session_heartbeat')[0]!.json).toEqual({ session_id: 'sess-1', type: 'session_heartbeat' });
    await b.close();
    // A beat already on the wire at close() may still land; after that, none (10+ periods).
    await new Promise((r) => setTimeout(r, 100));
    const after = beats();
    await new Promise((r) => setTimeout(r, 400));
    expect(beats()).toBe(after);
  });

  it('close() ends a call in flight with a typed error instead of hanging', async () => {
    server = await FakeTinker.start({ hook: (r, s) => (polled(s, r) === 'forward_backward' ? new Promise<Reply>(() => undefined) : undefined) });
    const b = make();
    await b.connect();
    const fb = b.forwardBackward([datum(2)], IS).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    await b.close();
    expect(await fb).toBeInstanceOf(BackendRequestError);
    await expect(b.optimStep({ learningRate: 1 })).rejects.toThrow(/closed/);
  });
});
