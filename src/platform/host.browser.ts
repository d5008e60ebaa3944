import type * as NodeHost from './host.js';
import { sha256HexOfText } from './sha256.js';

/**
 * The browser build's stand-in for `./host.js` (same exports), for a page or a Web Worker.
 */

let channel: InstanceType<typeof MessageChannel> | undefined;
const pending: (() => void)[] = [];

/** Resolves on a fresh macrotask: a `MessageChannel` message where there is one (no 4 ms timer clamp), else `setTimeout(0)`. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => {
    if (typeof MessageChannel === 'undefined') {
      setTimeout(resolve, 0);
      return;
    }
    if (!channel) {
      channel = new MessageChannel();
      // Typed loosely: the package compiles against Node's MessagePort, whose types lack `onmessage`.
      const port = channel.port1 as unknown as { onmessage: (() => void) | null; unref?: () => void };
      port.onmessage = () => pending.shift()?.();
      port.unref?.(); // where the port could keep a process alive (Node, in tests), it does not
    }
    pending.push(resolve);
    channel.port2.postMessage(null);
  });
}

/** Lowercase hex SHA-256 of `text`'s UTF-8 bytes (pure JavaScript: `crypto.subtle` is asynchronous only). */
export function sha256Hex(text: string): string {
  return sha256HexOfText(text);
}

const encoder = new TextEncoder();

/** Length of `text` in UTF-8 bytes (a lone surrogate counts 3, as U+FFFD, as in Node). */
export function utf8ByteLength(text: string): number {
  return encoder.encode(text).length;
}

/** Nothing to do: browsers put no limit on an `AbortSignal`'s listeners. */
export function allowManyAbortListeners(_signal: AbortSignal): void {}

/** A page has no terminal: the default console progress stays off. */
export function stderrIsTTY(): boolean {
  return false;
}

/** Console progress in a page goes to the developer console, a line per write. */
export function progressStream(): NodeJS.WriteStream {
  const write = (chunk: string): boolean => {
    console.log(String(chunk).replace(/\n$/, ''));
    return true;
  };
  return { write, isTTY: false } as unknown as NodeJS.WriteStream;
}

const tag = Math.random().toString(36).slice(2, 10);

/** A random tag fixed for this page load (a page has no process id). */
export function processTag(): string {
  return tag;
}

/** Every module sits at the root of the page's storage, where the bundled assets are mounted. */
export function moduleDir(_moduleUrl: string): string {
  return '/';
}

// Compile-time check: this module offers every name the Node module does, with the same signatures.
const _same: typeof NodeHost = { yieldToEventLoop, sha256Hex, utf8ByteLength, allowManyAbortListeners, stderrIsTTY, progressStream, processTag, moduleDir };
void _same;
