/**
 * `agentrl/adapters/pyodide`: run model-written Python in a web page, in Pyodide (CPython on WebAssembly) inside Web
 * Workers, with no server. Browser-only: it needs `Worker`; build `worker.ts` as its own entry and serve the `pyodide`
 * npm package's files with the page. See {@link pyodideSandbox}.
 */
export { pyodideSandbox, type PyodideSandboxOptions } from './pyodide-sandbox.js';
