import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Renderer } from '../../chat/types.js';
import type { SamplingClient } from '../../backend/types.js';
import { createHttpServer, type HttpServer } from '../../http/http-server.js';
import { OpenAIApiError } from '../../endpoint/openai/api-error.js';
import { openaiRoutes } from '../../endpoint/openai/routes.js';
import { anthropicRoutes } from '../../endpoint/anthropic/messages.js';
import type { RolloutRecorder } from './recorder.js';

/** A rollout's private view of the endpoint. */
export interface RolloutLease {
  /** OpenAI base URL, `${root}/v1`. */
  readonly baseURL: string;
  /** The server's root URL: Anthropic's base URL (its client adds `/v1/messages`). */
  readonly rootURL: string;
  readonly apiKey: string;
  /** Refuses the key from now on (401); idempotent. */
  revoke(): void;
}

/** Never called: every request is sampled by its rollout's recorder (the route needs a sampler to exist). */
const NO_SAMPLER: SamplingClient = {
  sample: () => Promise.reject(new OpenAIApiError(401, 'missing or wrong API key', { errorCode: 'invalid_api_key' })),
  computeLogprobs: () => Promise.reject(new Error('not served')),
};

function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (typeof h === 'string' && h.startsWith('Bearer ')) return h.slice(7).trim();
  const x = req.headers['x-api-key'];
  return typeof x === 'string' ? x : undefined;
}

/**
 * The endpoint agentEnvironment serves its rollouts on: one loopback server (`/v1/models`, `/v1/chat/completions`
 * and `/v1/responses` from `openaiRoutes`, Anthropic's `/v1/messages` from `anthropicRoutes`, all with tools,
 * streaming or not, over one recorder per rollout), where each rollout has its own random key; a request is sampled and recorded by the rollout its key belongs to, and refused (401) once that rollout ended.
 */
export class RecordingEndpoint {
  readonly #server: HttpServer;
  readonly #url: string;
  readonly #rollouts = new Map<string, RolloutRecorder>();

  private constructor(server: HttpServer, url: string, rollouts: Map<string, RolloutRecorder>) {
    this.#server = server;
    this.#url = url;
    this.#rollouts = rollouts;
  }

  /** Starts the server on 127.0.0.1 (a free port; it does not keep the process alive). */
  static async start(renderer: Renderer, modelName: string): Promise<RecordingEndpoint> {
    const rollouts = new Map<string, RolloutRecorder>();
    // The agents run on the trainer's thread, whose engine steps block it for seconds: a keep-alive timeout shorter than
    // a step drops every idle pooled connection just as the next step's agents reuse them (ECONNRESET). Loopback only,
    // one client process: holding idle connections longer costs nothing.
    const server = createHttpServer({
      name: 'agentEnvironment endpoint',
      host: '127.0.0.1',
      clientKey: (req) => bearer(req) ?? req.ip,
      limits: { keepAliveTimeoutMs: 65_000 },
    });
    const recorderOf = (req: FastifyRequest): RolloutRecorder => {
      const key = bearer(req);
      const r = key !== undefined ? rollouts.get(key) : undefined;
      if (!r) throw new OpenAIApiError(401, 'missing or wrong API key (this rollout may have ended)', { errorCode: 'invalid_api_key' });
      return r;
    };
    await server.app.register(openaiRoutes, { sampler: NO_SAMPLER, renderer, modelName, completions: false, turnHooks: (req) => recorderOf(req).hooks() });
    await server.app.register(anthropicRoutes, { renderer, turnHooks: (req) => recorderOf(req).hooks() });
    const url = await server.listen();
    server.app.server.unref();
    return new RecordingEndpoint(server, url, rollouts);
  }

  /** Gives `recorder` a fresh key; its base URL is `${url}/v1`. */
  lease(recorder: RolloutRecorder): RolloutLease {
    const apiKey = `agentrl-rollout-${randomBytes(18).toString('base64url')}`;
    this.#rollouts.set(apiKey, recorder);
    return { baseURL: `${this.#url}/v1`, rootURL: this.#url, apiKey, revoke: () => void this.#rollouts.delete(apiKey) };
  }

  /** Rollouts with a live key. */
  get active(): number {
    return this.#rollouts.size;
  }

  async close(): Promise<void> {
    this.#rollouts.clear();
    await this.#server.close();
  }
}
