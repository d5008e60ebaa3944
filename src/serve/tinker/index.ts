export { createServeApp, type ServeApp, type ServeAppOptions, type ServePlugin } from './server.js';
export { TinkerService, type TinkerServiceOptions } from './service.js';
export { registerTinkerRoutes, TINKER_PREFIX } from './routes.js';
export { ServeRequestError, type ErrorCategory } from './errors.js';
