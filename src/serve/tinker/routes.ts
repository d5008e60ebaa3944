import type { FastifyInstance, FastifyReply } from 'fastify';
import type { z } from 'zod';
import { AgentRLError } from '../../errors/base.js';
import type { ServeCaller } from './caller.js';
import { errorBody, ServeRequestError } from './errors.js';
import type { TinkerService } from './service.js';
import * as w from './wire.js';

/** Path prefix of every Tinker endpoint. */
export const TINKER_PREFIX = '/api/v1';

/**
 * Registers the Tinker HTTP API (`reference/tinker-http.md` §1.3) on `app`, answered by `service`.
 * Errors: a body that does not parse → 400 `{error, category: "user"}`; an unknown session, model or sampler → 404;
 * a reused `seq_id` with other content → 409; failures while a request runs → its future's `{error, category}`.
 * Another principal's session, model, future, checkpoint or sampler is answered exactly like an unknown one (404).
 * Past a request limit (`ServeLimits`): 400; past a load limit: 429 (or 503 for the model count) with `Retry-After`.
 * `retrieve_future` long-polls and answers `{type: "try_again"}` while pending, 410 once a result has expired.
 */
export function registerTinkerRoutes(app: FastifyInstance, service: TinkerService): void {
  const p = TINKER_PREFIX;
  const post = <S extends z.ZodType>(path: string, schema: S, handler: (body: z.infer<S>, caller: ServeCaller, signal: AbortSignal) => unknown) => {
    app.post(`${p}/${path}`, async (req, reply) => {
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

  app.get(`${p}/healthz`, async () => ({ status: 'ok' }));
  app.get(`${p}/get_server_capabilities`, async () => service.capabilities());
  // Tinker SDK ≥ 0.18 bootstrap; this server has no JWT exchange.
  app.post(`${p}/client/config`, async () => ({ pjwt_auth_enabled: false }));
  app.post(`${p}/telemetry`, async () => ({ status: 'accepted' }));

  post('create_session', w.createSessionSchema, (b, c) => service.createSession(b, c));
  post('session_heartbeat', w.heartbeatSchema, (b, c) => service.heartbeat(b, c));
  post('create_model', w.createModelSchema, (b, c) => service.createModel(b, c));
  post('get_info', w.modelIdSchema, (b, c) => service.getInfo(b, c));
  post('unload_model', w.modelIdSchema, (b, c) => service.unloadModel(b, c));
  post('forward_backward', w.forwardBackwardSchema, (b, c) => service.forwardBackward(b, c));
  post('forward', w.forwardSchema, (b, c) => service.forward(b, c));
  post('optim_step', w.optimStepSchema, (b, c) => service.optimStep(b, c));
  post('save_weights', w.saveWeightsSchema, (b, c) => service.saveWeights(b, c));
  post('load_weights', w.loadWeightsSchema, (b, c) => service.loadWeights(b, c));
  post('save_weights_for_sampler', w.saveForSamplerSchema, (b, c) => service.saveWeightsForSampler(b, c));
  post('create_sampling_session', w.createSamplingSessionSchema, (b, c) => service.createSamplingSession(b, c));
  post('asample', w.sampleSchema, (b, c) => service.sample(b, c));
  app.post(`${p}/retrieve_future`, async (req, reply) => {
    const parsed = w.retrieveFutureSchema.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send({ error: 'retrieve_future: request_id (string) is required', category: 'user' });
    const ac = new AbortController();
    reply.raw.once('close', () => ac.abort());
    const r = await service.retrieve(parsed.data, service.callerOf(req.headers), ac.signal);
    switch (r.state) {
      case 'done':
        return r.body;
      case 'pending':
        return { type: 'try_again', request_id: parsed.data.request_id, queue_state: 'active' };
      case 'expired':
        return reply.code(410).send({ error: `request ${parsed.data.request_id} expired; resubmit it`, category: 'user' });
      case 'unknown':
        return reply.code(404).send({ error: `unknown request_id '${parsed.data.request_id}'`, category: 'user' });
    }
  });
}

function sendError(reply: FastifyReply, e: unknown): FastifyReply {
  if (e instanceof ServeRequestError) {
    if (e.retryAfterS !== undefined) void reply.header('retry-after', String(e.retryAfterS));
    return reply.code(e.status).send({ error: e.message, category: e.category });
  }
  const body = errorBody(e);
  return reply.code(AgentRLError.isInstance(e) && body.category === 'user' ? 400 : 500).send(body);
}
