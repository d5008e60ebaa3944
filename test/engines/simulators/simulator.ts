/**
 * Engine simulators: agentrl serve's Tinker service (the embedded engine) behind a loopback HTTP server, with one
 * engine's documented behaviours hooked in front of and around it — wire rules and error bodies at the HTTP layer,
 * loss normalisation, optimizer fields, sampler semantics and failures by wrapping the service's methods. Each
 * engine's hooks live in its own file and cite the engine's source line per behaviour (README.md has the table).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHttpServer } from '../../../src/http/index.js';
import { registerTinkerRoutes, TinkerService, type ServeCaller } from '../../../apps/serve/tinker/index.js';
import { innerResult, OwnFutures, type FutureBody } from './own-futures.js';
import { SamplerBook } from './samplers.js';

/** Engines with a simulator. */
export const SIMULATED_ENGINES = ['tinker', 'skyrl-jax', 'skyrl-fsdp', 'skyrl-megatron', 'tuft', 'open-rl'] as const;
/** An engine with a simulator. */
export type SimEngine = (typeof SIMULATED_ENGINES)[number];

type Overridable =
  | 'createModel'
  | 'forwardBackward'
  | 'forward'
  | 'optimStep'
  | 'saveWeights'
  | 'loadWeights'
  | 'saveWeightsForSampler'
  | 'createSamplingSession'
  | 'sample'
  | 'unloadModel';
/** Service methods an engine replaces (each may call `ctx.inner`'s own). */
export type ServiceOverrides = { -readonly [K in Overridable]?: TinkerService[K] };

/** An HTTP answer an engine gives instead of agentrl serve's. */
export interface SimAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What a simulator knows while it runs; engine hooks read and write it. */
export interface SimContext {
  /** agentrl serve's service: the embedded engine, one `localBackend` per model. */
  readonly inner: TinkerService;
  /** The one caller (simulators run without API keys). */
  readonly caller: ServeCaller;
  /** Futures the simulator answers itself. */
  readonly own: OwnFutures;
  /** Sampler ownership and snapshots. */
  readonly samplers: SamplerBook;
  /** The poll hold in force (the engine's, scaled), ms. */
  readonly holdMs: number;
  /** What the engine did, for tests (white-box: the inner engine's own figures). */
  readonly record: SimRecord;
  /** {@link SimulatorOptions.keepSamplingSeed}. */
  readonly keepSamplingSeed: boolean;
}

/** Observations of a simulator run. */
export interface SimRecord {
  /** The gradient norm each optim_step applied (the inner engine's, before the engine renames metrics), in order. */
  readonly gradNorms: number[];
  /** The Adam parameters each optim_step applied (after the engine's rewriting), in order. */
  readonly adam: Record<string, unknown>[];
  /** Requests refused or failed by an engine rule, as `route: message`. */
  readonly refusals: string[];
}

/** One engine's behaviour. */
export interface EngineBehaviour {
  /** The engine's `retrieve_future` hold (unscaled, ms) and what a held poll then answers. */
  readonly hold: { readonly ms: number; readonly answer: '408' | 'try_again' };
  /** Answers a request before agentrl serve's routes see it (missing routes, wire formats), or `undefined`. */
  intercept?(req: FastifyRequest, inject: (url: string) => Promise<SimAnswer>): SimAnswer | undefined | Promise<SimAnswer | undefined>;
  /** The engine's answer for a request refused at submit (`'submit'`, agentrl serve's status) or a failed future (`'future'`). */
  error(status: number, message: string, where: 'submit' | 'future'): SimAnswer;
  /** Rewrites a finished JSON result (e.g. metric names). */
  result?(body: FutureBody): FutureBody;
  /** Service methods replaced. */
  readonly overrides?: ServiceOverrides;
}

/** Options of {@link startEngineSimulator}. */
export interface SimulatorOptions {
  /** Model shape and seed of the embedded engine (as `agentrl serve --model …`); with `checkpoint`, its seed only. */
  readonly model: { readonly layers?: number; readonly dModel?: number; readonly heads?: number; readonly contextTokens?: number; readonly seed?: number };
  /** A `saveState` directory every created model starts from (as `agentrl serve --checkpoint`). */
  readonly checkpoint?: string;
  /** The engine's poll hold is multiplied by this (SkyRL's 300 s × 0.001 = 300 ms). @default 0.001 */
  readonly holdScale?: number;
  /** Where each model's engine computes. @default 'main' (deterministic and cheap for tiny models) */
  readonly engineThread?: 'worker' | 'main';
  /**
   * Keep the client's sampling seed on an engine that drops it (open-rl), so that a parity test compares the update on
   * the same rollouts; the engine's own behaviour (unseeded samples) is the default. @default false
   */
  readonly keepSamplingSeed?: boolean;
}

/** A running simulator. */
export interface EngineSimulator {
  readonly engine: SimEngine;
  /** Base URL, e.g. `http://127.0.0.1:41234` (pass as `tinkerBackend({ baseUrl })`). */
  readonly url: string;
  readonly record: SimRecord;
  /** The embedded engine behind it (white-box checks). */
  readonly inner: TinkerService;
  /** Logprobs of `tokens` under the newest live model's training weights now (white-box; entry 0 null). */
  policyLogprobs(tokens: readonly number[]): Promise<(number | null)[]>;
  close(): Promise<void>;
}

/** An engine: its poll hold (unscaled) and how its behaviour is built from the context. */
export interface EngineSpec {
  readonly hold: EngineBehaviour['hold'];
  make(ctx: SimContext): Omit<EngineBehaviour, 'hold'>;
}

/**
 * Starts the simulator of `engine` on 127.0.0.1 (a free port).
 * @see README.md in this folder for what each engine's simulator reproduces and from which source line.
 */
export async function startSimulator(engine: SimEngine, spec: EngineSpec, options: SimulatorOptions): Promise<EngineSimulator> {
  const holdMs = Math.max(1, Math.round(spec.hold.ms * (options.holdScale ?? 0.001)));
  const inner = new TinkerService({
    ...(options.checkpoint !== undefined ? { checkpoint: options.checkpoint } : {}),
    engine: options.checkpoint !== undefined ? { seed: options.model.seed } : { ...options.model },
    engineThread: options.engineThread ?? 'main',
    pollTimeoutMs: holdMs,
    limits: { samplerVersionsPerModel: 64, maxCheckpointsPerModel: 4096, maxNamedSamplersPerModel: 1024 },
  });
  const caller = inner.callerOf({});
  const record: SimRecord = { gradNorms: [], adam: [], refusals: [] };
  const ctx: SimContext = {
    inner,
    caller,
    own: new OwnFutures(),
    samplers: new SamplerBook(inner, caller),
    holdMs,
    record,
    keepSamplingSeed: options.keepSamplingSeed ?? false,
  };
  const behaviour: EngineBehaviour = { ...spec.make(ctx), hold: spec.hold };
  const http = createHttpServer({ name: `${engine} simulator`, host: '127.0.0.1', port: 0, limits: { maxBodyBytes: 64 * 1024 * 1024 } });
  const app = http.app;

  const o = behaviour.overrides ?? {};
  const call = <K extends Overridable>(k: K): TinkerService[K] => (o[k] ?? (inner[k] as (...a: never[]) => unknown).bind(inner)) as TinkerService[K];
  const optimStep: TinkerService['optimStep'] = (body, c) => {
    const r = call('optimStep')(body, c);
    const observe = ctx.own.has(r.request_id)
      ? ctx.own.wait(r.request_id, 3_600_000).then((x) => (x.state === 'done' ? x.body : {}))
      : innerResult(inner, c, r.request_id);
    void observe.then(
      (b) => {
        const m = b['metrics'] as Record<string, number> | undefined;
        if (m && typeof m['grad_norm'] === 'number') record.gradNorms.push(m['grad_norm']);
      },
      () => undefined,
    );
    return r;
  };
  const wrapped: Partial<TinkerService> = {
    createModel: call('createModel'),
    forwardBackward: call('forwardBackward'),
    forward: call('forward'),
    optimStep,
    saveWeights: call('saveWeights'),
    loadWeights: call('loadWeights'),
    saveWeightsForSampler: call('saveWeightsForSampler'),
    createSamplingSession: call('createSamplingSession'),
    sample: call('sample'),
    unloadModel: call('unloadModel'),
    retrieve: (body, c, signal) => (ctx.own.has(body.request_id) ? ctx.own.wait(body.request_id, holdMs, signal) : inner.retrieve(body, c, signal)),
  };
  const service = new Proxy(inner, {
    get(target, key) {
      if (typeof key === 'string' && key in wrapped) return wrapped[key as keyof TinkerService];
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });

  const answered = new WeakSet<FastifyRequest>();
  const send = (req: FastifyRequest, reply: FastifyReply, a: SimAnswer) => {
    answered.add(req);
    for (const [k, v] of Object.entries(a.headers ?? {})) void reply.header(k, v);
    return reply.code(a.status).send(a.body);
  };
  const inject =
    (req: FastifyRequest) =>
    async (url: string): Promise<SimAnswer> => {
      const r = await app.inject({ method: 'GET', url, headers: { ...req.headers, 'x-simulator-inject': '1' } });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(r.headers)) if (typeof v === 'string' && k !== 'content-length') headers[k] = v;
      return { status: r.statusCode, body: r.rawPayload, headers };
    };
  app.addHook('onRequest', async (req, reply) => {
    if (!behaviour.intercept || req.headers['x-simulator-inject'] !== undefined) return;
    const a = await behaviour.intercept(req, inject(req));
    if (a) return send(req, reply, a);
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (answered.has(req) || typeof payload !== 'string' || !req.url.startsWith('/api/v1/')) return payload;
    let json: unknown;
    try {
      json = JSON.parse(payload);
    } catch {
      return payload;
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return payload;
    const body = json as Record<string, unknown>;
    const rewrite = (a: SimAnswer) => {
      void reply.code(a.status);
      for (const [k, v] of Object.entries(a.headers ?? {})) void reply.header(k, v);
      return JSON.stringify(a.body);
    };
    if (reply.statusCode >= 400 && typeof body['error'] === 'string') {
      record.refusals.push(`${req.url}: ${body['error']}`);
      return rewrite(behaviour.error(reply.statusCode, body['error'], 'submit'));
    }
    if (reply.statusCode !== 200 || !req.url.startsWith('/api/v1/retrieve_future')) return payload;
    if (body['type'] === 'try_again' && behaviour.hold.answer === '408') return rewrite({ status: 408, body: { detail: 'Timeout waiting for result' } });
    if (typeof body['error'] === 'string' && typeof body['category'] === 'string') {
      record.refusals.push(`future: ${body['error']}`);
      return rewrite(behaviour.error(400, body['error'], 'future'));
    }
    return behaviour.result ? JSON.stringify(behaviour.result(body)) : payload;
  });

  registerTinkerRoutes(app, service, { maxBodyBytes: http.limits.maxBodyBytes, maxInFlight: http.limits.maxInFlight, zstdBodies: false });
  const url = await http.listen();
  return {
    engine,
    url,
    record,
    inner,
    async policyLogprobs(tokens) {
      const id = inner.modelIds(caller).at(-1);
      if (id === undefined) throw new Error(`${engine} simulator: no live model`);
      const r = inner.saveWeightsForSampler({ model_id: id, seq_id: null }, caller);
      const b = await innerResult(inner, caller, r.request_id);
      return (await inner.resolveSampler(String(b['sampling_session_id']), caller)).computeLogprobs(tokens);
    },
    async close() {
      await inner.close();
      await http.close();
    },
  };
}

/** The inner service's overridable methods, bound (what an engine calls for "do it as agentrl serve does"). */
export function innerMethods(inner: TinkerService): Required<ServiceOverrides> {
  const keys: Overridable[] = [
    'createModel',
    'forwardBackward',
    'forward',
    'optimStep',
    'saveWeights',
    'loadWeights',
    'saveWeightsForSampler',
    'createSamplingSession',
    'sample',
    'unloadModel',
  ];
  return Object.fromEntries(keys.map((k) => [k, (inner[k] as (...a: never[]) => unknown).bind(inner)])) as Required<ServiceOverrides>;
}
