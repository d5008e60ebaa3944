import type { FastifyInstance, FastifyReply } from 'fastify';
import type { z } from 'zod';
import { AgentRLError } from '../../errors/base.js';
import { errorBody, ServeRequestError } from './errors.js';
import type { Caller, TinkerService } from './service.js';
import * as w from './wire.js';
import { clientConfig, clientDynamicConfig, type ClientConfigFacts } from './client-config.js';
import { acceptsProtobuf, decodeForwardBackwardRequest, PROTOBUF, protoResult } from './proto-wire.js';
import { registerTinkerRestRoutes, requestCaller } from './rest-routes.js';

/** Options of {@link registerTinkerRoutes}. */
export interface TinkerRouteOptions extends ClientConfigFacts {
  /** Whether the server checks API keys (each key is then its own owner of sessions, runs and checkpoints). */
  readonly keyed: boolean;
}

/** Path prefix of every Tinker endpoint. */
export const TINKER_PREFIX = '/api/v1';

/**
 * Registers the Tinker HTTP API (`reference/tinker-http.md` §1.3) on `app`, answered by `service`.
 * Errors: a body that does not parse → 400 `{error, category: "user"}`; an unknown session, model or sampler → 404;
 * a reused `seq_id` with other content → 409; failures while a request runs → its future's `{error, category}`.
 * `retrieve_future` long-polls and answers `{type: "try_again"}` while pending, 410 once a result has expired.
 */
export function registerTinkerRoutes(app: FastifyInstance, service: TinkerService, options: TinkerRouteOptions = { keyed: false, maxBodyBytes: 64 * 1024 * 1024, maxInFlight: 256 }): void {
  const p = TINKER_PREFIX;
  // Protobuf bodies (SDK ≥ 0.22.3 with proto_write_fwdbwd, every body of 0.25) arrive as bytes; only forward_backward takes them.
  app.addContentTypeParser(PROTOBUF, { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  const post = <S extends z.ZodType>(path: string, schema: S, handler: (body: z.infer<S>, caller: Caller) => unknown) => {
    app.post(`${p}/${path}`, async (req, reply) => {
      if (Buffer.isBuffer(req.body)) return reply.code(415).send({ error: `${path}: protobuf bodies are accepted by forward_backward only; send JSON`, category: 'user' });
      const parsed = schema.safeParse(req.body ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return reply.code(400).send({ error: `${path}: ${issue.path.join('.') || '(body)'}: ${issue.message}`, category: 'user' });
      }
      try {
        return await handler(parsed.data, requestCaller(req, options.keyed));
      } catch (e) {
        return sendError(reply, e);
      }
    });
  };

  app.get(`${p}/healthz`, async () => ({ status: 'ok' }));
  app.get(`${p}/get_server_capabilities`, async () => service.capabilities());
  // Tinker SDK ≥ 0.18 bootstrap (flags it follows), ≥ 0.25 its periodically refreshed part.
  const config = clientConfig(options);
  app.post(`${p}/client/config`, async () => config);
  app.post(`${p}/client/dynamic_config`, async () => clientDynamicConfig());
  app.post(`${p}/telemetry`, async () => ({ status: 'accepted' }));

  post('create_session', w.createSessionSchema, (b, caller) => service.createSession(b, caller));
  post('session_heartbeat', w.heartbeatSchema, (b) => service.heartbeat(b));
  post('create_model', w.createModelSchema, (b, caller) => service.createModel(b, caller));
  post('get_info', w.modelIdSchema, (b) => service.getInfo(b));
  post('unload_model', w.modelIdSchema, (b) => service.unloadModel(b));
  app.post(`${p}/forward_backward`, async (req, reply) => {
    if (!Buffer.isBuffer(req.body)) {
      const parsed = w.forwardBackwardSchema.safeParse(req.body ?? {});
      if (!parsed.success) return badBody(reply, 'forward_backward', parsed.error);
      return runOrSend(reply, () => service.forwardBackward(parsed.data));
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      return reply.code(415).send({ error: `Content-Encoding '${encoding}' is not accepted (client/config: proto_compress_fwdbwd false); send the body uncompressed`, category: 'user' });
    }
    const raw = req.body;
    return runOrSend(reply, () => {
      const b = decodeForwardBackwardRequest(raw);
      return b.forward_only
        ? service.forward({ model_id: b.model_id, seq_id: b.seq_id, forward_input: b.forward_backward_input }, raw)
        : service.forwardBackward({ model_id: b.model_id, seq_id: b.seq_id, forward_backward_input: b.forward_backward_input }, raw);
    });
  });
  post('forward', w.forwardSchema, (b) => service.forward(b));
  post('optim_step', w.optimStepSchema, (b) => service.optimStep(b));
  post('save_weights', w.saveWeightsSchema, (b) => service.saveWeights(b));
  post('load_weights', w.loadWeightsSchema, (b) => service.loadWeights(b));
  post('save_weights_for_sampler', w.saveForSamplerSchema, (b) => service.saveWeightsForSampler(b));
  post('create_sampling_session', w.createSamplingSessionSchema, (b) => service.createSamplingSession(b));
  post('asample', w.sampleSchema, (b) => service.sample(b));
  registerTinkerRestRoutes(app, service, { keyed: options.keyed });
  app.post(`${p}/retrieve_future`, async (req, reply) => {
    const parsed = w.retrieveFutureSchema.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send({ error: 'retrieve_future: request_id (string) is required', category: 'user' });
    const ac = new AbortController();
    reply.raw.once('close', () => ac.abort());
    const r = await service.retrieve(parsed.data, ac.signal);
    switch (r.state) {
      case 'done': {
        // Results with a protobuf form go as protobuf to a poll that accepts it (SDK ≥ 0.18.1 for samples, ≥ 0.19
        // for forward_backward; 0.25 takes nothing else); JSON otherwise, and always for failures.
        const proto = acceptsProtobuf(req.headers.accept) ? protoResult(r.body) : undefined;
        return proto ? reply.type(PROTOBUF).send(Buffer.from(proto.buffer, proto.byteOffset, proto.byteLength)) : r.body;
      }
      case 'pending':
        return { type: 'try_again', request_id: parsed.data.request_id, queue_state: 'active' };
      case 'expired':
        return reply.code(410).send({ error: `request ${parsed.data.request_id} expired; resubmit it`, category: 'user' });
      case 'unknown':
        return reply.code(404).send({ error: `unknown request_id '${parsed.data.request_id}'`, category: 'user' });
    }
  });
}

function badBody(reply: FastifyReply, path: string, error: z.ZodError): FastifyReply {
  const issue = error.issues[0]!;
  return reply.code(400).send({ error: `${path}: ${issue.path.join('.') || '(body)'}: ${issue.message}`, category: 'user' });
}

async function runOrSend(reply: FastifyReply, run: () => unknown): Promise<unknown> {
  try {
    return await run();
  } catch (e) {
    return sendError(reply, e);
  }
}

function sendError(reply: FastifyReply, e: unknown): FastifyReply {
  if (e instanceof ServeRequestError) return reply.code(e.status).send({ error: e.message, category: e.category });
  const body = errorBody(e);
  return reply.code(AgentRLError.isInstance(e) && body.category === 'user' ? 400 : 500).send(body);
}
