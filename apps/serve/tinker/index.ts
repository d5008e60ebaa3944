export { createServeApp, type ServeApp, type ServeAppOptions, type ServePlugin } from './server.js';
export { TinkerService, type TinkerServiceOptions, type TinkerServiceStats, type ServeModelRef, type ServeSessionRef } from './service.js';
export { DEFAULT_SERVE_LIMITS, type ServeLimits } from './serve-limits.js';
export { callerResolver, type ServeCaller } from './caller.js';
export { registerTinkerRoutes, TINKER_PREFIX } from './routes.js';
export { ServeRequestError, type ErrorCategory } from './errors.js';
export type { ServeHost } from './serve-host.js';
