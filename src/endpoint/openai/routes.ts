import type { FastifyInstance } from 'fastify';
import type { SamplingClient } from '../../backend/types.js';
import { OpenAIApiError, openAIErrorHandler } from './api-error.js';
import { chatCompletionsHandler } from './chat-completions.js';
import { completionsHandler } from './completions.js';
import { responsesHandler } from './responses.js';
import type { OpenAIRoutesOptions, RouteContext } from './types.js';

/**
 * The OpenAI-compatible surface as a Fastify plugin, under `/v1`:
 * - `GET /v1/models` — `{ object: 'list', data: [{ id, object: 'model', created, owned_by: 'agentrl' }] }`: `modelName`, then `models()`;
 * - `POST /v1/completions` — see {@link completionsHandler} (vLLM's token-id extensions included);
 * - `POST /v1/chat/completions` — see {@link chatCompletionsHandler} (chat template, tools, streaming);
 * - `POST /v1/responses` — with `turnHooks` only (a recording server): see {@link responsesHandler}.
 *
 * Every error is answered in OpenAI's shape `{ error: { message, type, param, code } }`: 400 for a bad request, 401 for
 * a missing or wrong key (the key check itself is the HTTP layer's), 404 for an unknown model or route, 413 for a body
 * over the HTTP layer's limit, 500 for a server fault. `openaiCompatibleSampler` works against it, so does the official
 * `openai` client.
 *
 * @example
 * const server = createHttpServer({ name: 'agentrl serve' });
 * await server.app.register(openaiRoutes, { sampler: await backend.saveWeightsForSampler(), renderer, modelName: 'local' });
 * const url = await server.listen();   // the OpenAI base URL is `${url}/v1`
 */
export async function openaiRoutes(app: FastifyInstance, opts: OpenAIRoutesOptions): Promise<void> {
  const created = Math.floor(Date.now() / 1000);
  const ctx: RouteContext = {
    opts,
    sampler: async (model: string, request): Promise<SamplingClient> => {
      if (typeof opts.sampler === 'function') return opts.sampler(model, request);
      if (model !== opts.modelName) throw new OpenAIApiError(404, `The model \`${model}\` does not exist.`, { param: 'model', errorCode: 'model_not_found' });
      return opts.sampler;
    },
    now: () => Math.floor(Date.now() / 1000),
  };
  await app.register(
    async (v1) => {
      v1.setErrorHandler(openAIErrorHandler);
      v1.setNotFoundHandler(async (req, reply) => {
        const e = new OpenAIApiError(404, `no route ${req.method} ${req.url}`, { errorCode: 'not_found' });
        await reply.code(404).send(e.body());
      });
      // The HTTP layer answers a bad key with its own body; give it OpenAI's shape on these routes.
      v1.addHook('onSend', async (_req, reply, payload) => {
        if (reply.statusCode !== 401 || typeof payload !== 'string' || payload.includes('"authentication_error"')) return payload;
        return JSON.stringify(new OpenAIApiError(401, 'missing or wrong API key', { errorCode: 'invalid_api_key' }).body());
      });
      v1.get('/models', async (req) => ({
        object: 'list',
        data: [opts.modelName, ...(opts.models?.(req) ?? [])].map((id) => ({ id, object: 'model', created, owned_by: 'agentrl' })),
      }));
      if (opts.completions !== false) v1.post('/completions', async (req, reply) => completionsHandler(ctx, req.body, reply));
      v1.post('/chat/completions', async (req, reply) => chatCompletionsHandler(ctx, req.body, reply, opts.turnHooks?.(req)));
      const turnHooks = opts.turnHooks;
      if (turnHooks) v1.post('/responses', async (req, reply) => responsesHandler(ctx, req.body, reply, turnHooks(req)));
    },
    { prefix: '/v1' },
  );
}
