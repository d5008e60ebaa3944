import { createHttpServer, type HttpServer } from '../../../src/http/http-server.js';
import { openaiRoutes } from '../../../src/endpoint/openai/routes.js';
import type { OpenAIRoutesOptions } from '../../../src/endpoint/openai/types.js';

/** Starts the /v1 plugin on the shared HTTP layer (127.0.0.1, free port); returns the server and its OpenAI base URL. */
export async function serveV1(
  opts: OpenAIRoutesOptions,
  http: { apiKey?: string; maxBodyBytes?: number } = {},
): Promise<{ server: HttpServer; baseUrl: string }> {
  const server = createHttpServer({
    name: 'openai-test',
    ...(http.apiKey ? { apiKey: http.apiKey } : {}),
    ...(http.maxBodyBytes ? { limits: { maxBodyBytes: http.maxBodyBytes } } : {}),
  });
  await server.app.register(openaiRoutes, opts);
  const url = await server.listen();
  return { server, baseUrl: `${url}/v1` };
}
