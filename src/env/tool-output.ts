import type { Message } from '../types/message.js';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** True when `v` is an array of agentrl messages (`{ role, content: string }`). */
export function isMessageArray(v: unknown): v is readonly Message[] {
  return (
    Array.isArray(v) &&
    v.every(
      (m) =>
        typeof m === 'object' && m !== null && ROLES.has((m as { role?: unknown }).role as string) && typeof (m as { content?: unknown }).content === 'string',
    )
  );
}

/**
 * What the model sees of a tool's return value: a string as is, an array of messages as those messages, any other
 * JSON value (a number, a boolean, an object, an array that is not messages) as its JSON text; a value with no JSON
 * form (`undefined`, a function, a symbol, a cyclic object) is answered with an error observation that says what was
 * returned and what a tool may return — never a crash of the rollout.
 */
export function toolOutputObservation(out: unknown, tool: string): string | readonly Message[] {
  if (typeof out === 'string') return out;
  if (isMessageArray(out)) return out;
  let json: string | undefined;
  try {
    json = typeof out === 'bigint' ? out.toString() : JSON.stringify(out);
  } catch {
    json = undefined;
  }
  if (json !== undefined) return json;
  return `Error: tool ${tool} returned ${describeValue(out)}; a tool returns a string, an array of messages, or a JSON value`;
}

/** A short description of a value's kind for error messages: `undefined`, `a function`, `an object (cyclic)`, … */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'symbol') return 'a symbol';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object') return `an object${v.constructor && v.constructor !== Object ? ` (${v.constructor.name})` : ''}`;
  return `${typeof v} ${String(v).slice(0, 40)}`;
}
