import type { FastifyInstance, FastifyReply } from 'fastify';
import type { z } from 'zod';
import { AgentRLError } from '../../errors/base.js';
import { errorBody, ServeRequestError } from './errors.js';
import type { TinkerService } from './service.js';
import * as w from './wire.js';

/** Path prefix of every Tinker endpoint. */
export const TINKER_PREFIX = '/api/v1';

/**
 * Registers the Tinker HTTP API (`reference/tinker-http.md` §1.3) on `app`, answered by `service`.
 * Errors: a body that does not parse → 400 `{error, category: "user"}`; an unknown session, model or sampler → 404;
 * a reused `seq_id` with other content → 409; failures while a request runs → its future's `{error, category}`.
 * `retrieve_future` long-polls and answers `{type: "try_again"}` while pending, 410 once a result has expired.
 */
export function registerTinkerRoutes(app: FastifyInstance, service: TinkerService): void {
  const p = TINKER_PREFIX;
  const post = <S extends z.ZodType>(path: string, schema: S, handler: (body: z.infer<S>, signal: AbortSignal) => unknown) => {
    app.post(`${p}/${path}`, async (req, reply) => {
      const parsed = schema.safeParse(req.body ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return reply.code(400).send({ error: `${path}: ${issue.path.join('.') || '(body)'}: ${issue.message}`, category: 'user' });
      }
      const ac = new AbortController();
      reply.raw.once('close', () => ac.abort());
      try {
        return await handler(parsed.data, ac.signal);
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

  post('create_session', w.createSessionSchema, (b) => service.createSession(b));
  post('session_heartbeat', w.heartbeatSchema, (b) => service.heartbeat(b));
  post('create_model', w.createModelSchema, (b) => service.createModel(b));
  post('get_info', w.modelIdSchema, (b) => service.getInfo(b));
  post('unload_model', w.modelIdSchema, (b) => service.unloadModel(b));
  post('forward_backward', w.forwardBackwardSchema, (b) => service.forwardBackward(b));
  post('forward', w.forwardSchema, (b) => service.forward(b));
  post('optim_step', w.optimStepSchema, (b) => service.optimStep(b));
  post('save_weights', w.saveWeightsSchema, (b) => service.saveWeights(b));
  post('load_weights', w.loadWeightsSchema, (b) => service.loadWeights(b));
  post('save_weights_for_sampler', w.saveForSamplerSchema, (b) => service.saveWeightsForSampler(b));
  post('create_sampling_session', w.createSamplingSessionSchema, (b) => service.createSamplingSession(b));
  post('asample', w.sampleSchema, (b) => service.sample(b));
  app.post(`${p}/retrieve_future`, async (req, reply) => {
    const parsed = w.retrieveFutureSchema.safeParse(req.body ?? {});
    if (!parsed.success) return reply.code(400).send({ error: 'retrieve_future: request_id (string) is required', category: 'user' });
    const ac = new AbortController();
    reply.raw.once('close', () => ac.abort());
    const r = await service.retrieve(parsed.data, ac.signal);
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
  if (e instanceof ServeRequestError) return reply.code(e.status).send({ error: e.message, category: e.category });
  const body = errorBody(e);
  return reply.code(AgentRLError.isInstance(e) && body.category === 'user' ? 400 : 500).send(body);
}
