import { setMaxListeners } from 'node:events';
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What differs between Node and a browser page besides files: a browser build swaps this module for
 * `host.browser.ts` (same exports). Every function here does exactly what the library did inline before.
 */

/** Resolves after pending I/O callbacks have run (Node: `setImmediate`), so a long CPU loop lets timers and sockets in. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((r) => setImmediate(r));
}

/** Lowercase hex SHA-256 of `text`'s UTF-8 bytes (Node: `node:crypto`). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Length of `text` in UTF-8 bytes (Node: `Buffer.byteLength`, which counts a lone surrogate as 3 bytes, as TextEncoder does). */
export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Lets any number of listeners wait on `signal` without Node's "possible EventTarget memory leak" warning. */
export function allowManyAbortListeners(signal: AbortSignal): void {
  setMaxListeners(0, signal);
}

/** Whether the process's stderr is a terminal (the default console progress is drawn only there). */
export function stderrIsTTY(): boolean {
  return process.stderr.isTTY === true;
}

/** Where the console progress goes by default: the process's stderr. */
export function progressStream(): NodeJS.WriteStream {
  return process.stderr;
}

/** A tag that tells this process's temporary files from another's (Node: the process id). */
export function processTag(): string {
  return String(process.pid);
}

/** The folder of the module at `moduleUrl` (its `import.meta.url`), in the terms of {@link ./fs.js}. */
export function moduleDir(moduleUrl: string): string {
  return dirname(fileURLToPath(moduleUrl));
}
