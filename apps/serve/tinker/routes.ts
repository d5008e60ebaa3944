import type { FastifyInstance, FastifyReply } from 'fastify';
import type { z } from 'zod';
import { AgentRLError } from 'agentrl/internal';
import type { ServeCaller } from './caller.js';
import { errorBody, ServeRequestError } from './errors.js';
import type { TinkerService } from './service.js';
import * as w from './request-schemas.js';
import { clientConfig, clientDynamicConfig, type ClientConfigFacts } from './client-config.js';
import { acceptsProtobuf, decodeForwardBackwardRequest, PROTOBUF, protoResult } from './proto-wire.js';
import { registerTinkerRestRoutes } from './rest-routes.js';
import { decodeZstdBody } from './zstd-body.js';
import { presentedKey } from 'agentrl/internal';
import { TINKER_API_PREFIX, TINKER_ROUTES as R } from 'agentrl/internal';

/** Options of {@link registerTinkerRoutes}: what `client/config` reports. Callers are told apart by `service.callerOf`. */
export type TinkerRouteOptions = ClientConfigFacts;

/** Path prefix of every Tinker endpoint (the protocol module's). */
export const TINKER_PREFIX = TINKER_API_PREFIX;

/**
 * Registers the Tinker HTTP API (the routes of thinking-machines-lab/tinker `src/tinker/resources/`) on `app`, answered by `service`.
 * Errors: a body that does not parse → 400 `{error, category: "user"}`; an unknown session, model or sampler → 404;
 * a reused `seq_id` with other content → 409; failures while a request runs → its future's `{error, category}`.
 * Another principal's session, model, future, checkpoint or sampler is answered exactly like an unknown one (404).
 * Past a request limit (`ServeLimits`): 400; past a load limit: 429 (or 503 for the model count) with `Retry-After`.
 * `retrieve_future` long-polls and answers `{type: "try_again"}` while pending, 410 once a result has expired.
 */
export function registerTinkerRoutes(
  app: FastifyInstance,
  service: TinkerService,
  options: TinkerRouteOptions = { maxBodyBytes: 64 * 1024 * 1024, maxInFlight: 256 },
): void {
  const p = TINKER_PREFIX;
  // Protobuf bodies (SDK ≥ 0.22.3 with proto_write_fwdbwd, every body of 0.25) arrive as bytes; only forward_backward takes them.
  app.addContentTypeParser(PROTOBUF, { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  const post = <S extends z.ZodType>(path: string, schema: S, handler: (body: z.infer<S>, caller: ServeCaller, signal: AbortSignal) => unknown) => {
    app.post(`${p}/${path}`, async (req, reply) => {
      if (Buffer.isBuffer(req.body))
        return reply.code(415).send({ error: `${path}: protobuf bodies are accepted by forward_backward only; send JSON`, category: 'user' });
      const parsed = schema.safeParse(req.body ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return reply.code(400).send({ error: `${path}: ${issue.path.join('.') || '(body)'}: ${issue.message}`, category: 'user' });
      }
      const ac = new AbortController();
      reply.raw.once('close', () => ac.abort());
      try {
        return await handler(parsed.data, service.callerOf(req.headers), ac.signal);
      } catch (e) {
        return sendError(reply, e);
      }
    });
  };

  app.get(`${p}/${R.healthz}`, async () => ({ status: 'ok' }));
  app.get(`${p}/${R.serverCapabilities}`, async () => service.capabilities());
  // Tinker SDK ≥ 0.18 bootstrap (flags it follows), ≥ 0.25 its periodically refreshed part.
  const config = clientConfig({ ...options, jwtAuth: service.accessTokens !== undefined });
  app.post(`${p}/${R.clientConfig}`, async () => config);
  app.post(`${p}/${R.clientDynamicConfig}`, async () => clientDynamicConfig());
  const tokens = service.accessTokens;
  if (tokens) {
    // The exchange takes the API key itself (the HTTP layer has checked it is a key or a live token): a token
    // cannot renew itself, so a leaked one dies at its exp.
    app.post(`${p}/${R.authToken}`, async (req, reply) => {
      const presented = presentedKey(req.headers);
      try {
        return { jwt: tokens.issue(presented ?? '').jwt };
      } catch {
        return reply.code(401).send({ error: 'auth/token: exchange the API key itself (X-API-Key), not an access token', category: 'user' });
      }
    });
  }
  app.post(`${p}/${R.telemetry}`, async () => ({ status: 'accepted' }));

  post(R.createSession, w.createSessionSchema, (b, c) => service.createSession(b, c));
  post(R.sessionHeartbeat, w.heartbeatSchema, (b, c) => service.heartbeat(b, c));
  post(R.createModel, w.createModelSchema, (b, c) => service.createModel(b, c));
  post(R.getInfo, w.modelIdSchema, (b, c) => service.getInfo(b, c));
  post(R.unloadModel, w.modelIdSchema, (b, c) => service.unloadModel(b, c));
  // JSON (SDK ≤ 0.24) or protobuf (0.25; `forward_only` makes it a forward): the same limits, ownership and queue.
  app.post(`${p}/${R.forwardBackward}`, { config: { contentEncodings: ['zstd'] } }, async (req, reply) => {
    const caller = service.callerOf(req.headers);
    if (!Buffer.isBuffer(req.body)) {
      const parsed = w.forwardBackwardSchema.safeParse(req.body ?? {});
      if (!parsed.success) return badBody(reply, 'forward_backward', parsed.error);
      return runOrSend(reply, () => service.forwardBackward(parsed.data, caller));
    }
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding !== 'identity' && encoding !== 'zstd') {
      return reply.code(415).send({ error: `Content-Encoding '${encoding}' is not accepted; send the body as zstd or uncompressed`, category: 'user' });
    }
    const body = req.body;
    return runOrSend(reply, () => {
      // zstd bodies are accepted whether or not client/config asks for them (proto_compress_fwdbwd), within the body limit.
      const raw = encoding === 'zstd' ? decodeZstdBody(body, options.maxBodyBytes) : body;
      const b = decodeForwardBackwardRequest(raw);
      // The range checks the JSON schema makes on loss_fn_config (datum and token limits are the service's).
      const config = w.forwardInputSchema.shape.loss_fn_config.safeParse(b.forward_backward_input.loss_fn_config);
      if (!config.success) return badBody(reply, 'forward_backward', config.error, 'forward_backward_input.loss_fn_config');
      return b.forward_only
        ? service.forward({ model_id: b.model_id, seq_id: b.seq_id, forward_input: b.forward_backward_input }, caller, raw)
        : service.forwardBackward({ model_id: b.model_id, seq_id: b.seq_id, forward_backward_input: b.forward_backward_input }, caller, raw);
    });
  });
  post(R.forward, w.forwardSchema, (b, c) => service.forward(b, c));
  post(R.optimStep, w.optimStepSchema, (b, c) => service.optimStep(b, c));
  post(R.saveWeights, w.saveWeightsSchema, (b, c) => service.saveWeights(b, c));
  post(R.loadWeights, w.loadWeightsSchema, (b, c) => service.loadWeights(b, c));
  post(R.saveWeightsForSampler, w.saveForSamplerSchema, (b, c) => service.saveWeightsForSampler(b, c));
  post(R.createSamplingSession, w.createSamplingSessionSchema, (b, c) => service.createSamplingSession(b, c));
  post(R.asample, w.sampleSchema, (b, c) => service.sample(b, c));
  registerTinkerRestRoutes(app, service);
  app.post(`${p}/${R.retrieveFuture}`, async (req, reply) => {
    const parsed = w.retrieveFutureSchema.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send({ error: 'retrieve_future: request_id (string) is required', category: 'user' });
    const ac = new AbortController();
    reply.raw.once('close', () => ac.abort());
    const r = await service.retrieve(parsed.data, service.callerOf(req.headers), ac.signal);
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

function badBody(reply: FastifyReply, path: string, error: z.ZodError, field?: string): FastifyReply {
  const issue = error.issues[0]!;
  const at = [field, ...issue.path].filter((x) => x !== undefined && x !== '').join('.');
  return reply.code(400).send({ error: `${path}: ${at || '(body)'}: ${issue.message}`, category: 'user' });
}

async function runOrSend(reply: FastifyReply, run: () => unknown): Promise<unknown> {
  try {
    return await run();
  } catch (e) {
    return sendError(reply, e);
  }
}

function sendError(reply: FastifyReply, e: unknown): FastifyReply {
  if (e instanceof ServeRequestError) {
    if (e.retryAfterS !== undefined) void reply.header('retry-after', String(e.retryAfterS));
    return reply.code(e.status).send({ error: e.message, category: e.category });
  }
  const body = errorBody(e);
  return reply.code(AgentRLError.isInstance(e) && body.category === 'user' ? 400 : 500).send(body);
}
