import type { FastifyInstance } from 'fastify';
import type { ServeHost } from './tinker/serve-host.js';
import { openaiRoutes } from 'agentrl/internal';

/**
 * Mounts the OpenAI-compatible `/v1` surface on `agentrl serve` (a `ServePlugin` of `createServeApp`): model ids are
 * the served base model's name (its weights as loaded, e.g. `--checkpoint`), every `tinker://…/sampler_weights/<name>`
 * saved through the Tinker API (a trained checkpoint; `GET /v1/models` lists these two kinds), and a
 * `sampling_session_id`.
 * The server's API key applies (`Authorization: Bearer KEY`); with several keys each one samples and lists only its own
 * sampler paths. `n`, `max_tokens` and prompts × `n` are bounded by the service's limits (`maxNumSamples`,
 * `maxSampleTokens`, `maxSequencesPerRequest`); sampling stops when the client disconnects.
 * @example
 * const serve = createServeApp({ checkpoint: 'examples/retool/checkpoints/sft', plugins: [openaiServePlugin] });
 * const url = await serve.listen();   // OpenAI base URL: `${url}/v1`
 */
export async function openaiServePlugin(app: FastifyInstance, service: ServeHost): Promise<void> {
  await app.register(openaiRoutes, {
    modelName: service.modelName,
    renderer: await service.renderer(),
    sampler: (model, req) => service.resolveSampler(model, service.callerOf(req.headers)),
    models: (req) => service.samplerPaths(service.callerOf(req.headers)),
    maxContextTokens: service.contextTokens,
    limits: { maxN: service.limits.maxNumSamples, maxTokens: service.limits.maxSampleTokens, maxSequences: service.limits.maxSequencesPerRequest },
  });
}
