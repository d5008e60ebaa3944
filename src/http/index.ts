export { createHttpServer, isLoopbackHost, DEFAULT_HTTP_LIMITS } from './http-server.js';
export type { HttpServer, HttpServerOptions, HttpLimits, HttpServerStats, HttpErrorInfo } from './http-server.js';
export { clientGone } from './client-signal.js';
export { FairAdmission, type FairAdmissionLimits, type AdmissionResult, type AdmissionRefusal } from './fair-admission.js';
