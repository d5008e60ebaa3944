export { createHttpServer, isLoopbackHost, DEFAULT_HTTP_LIMITS } from './http-server.js';
export type { HttpServer, HttpServerOptions, HttpLimits } from './http-server.js';
