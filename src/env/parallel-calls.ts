import pLimit from 'p-limit';
import type { ParsedAction } from '../types/action.js';
import type { Message, ToolCall } from '../types/message.js';

/** Calls of one turn run at the same time at most, by default (`maxConcurrentCalls`). */
export const DEFAULT_MAX_CONCURRENT_CALLS = 4;

/**
 * Runs every call of a `tool` action (`action.calls`, in order) with at most `maxConcurrent` in flight, and returns
 * their results in call order whatever order they finish in. Each call's tool messages get the call's id as
 * `toolCallId` when the call has one and the message does not (templates such as Kimi K2's answer calls by id).
 * `runOne` must not throw for tool faults (they are observations); a throw rejects the whole turn.
 *
 * @param action - a parsed `tool` action.
 * @param runOne - runs one call; returns its observation messages (usually one `tool` message).
 * @param maxConcurrent - concurrency bound (≥ 1). @default {@link DEFAULT_MAX_CONCURRENT_CALLS}
 */
export async function runToolCalls<R extends { readonly observation: readonly Message[] }>(
  action: Extract<ParsedAction, { kind: 'tool' }>,
  runOne: (call: ToolCall, index: number) => Promise<R>,
  maxConcurrent: number = DEFAULT_MAX_CONCURRENT_CALLS,
): Promise<R[]> {
  const limit = pLimit(Math.max(1, Math.floor(maxConcurrent)));
  const calls = action.calls.length > 0 ? action.calls : [action.call];
  return Promise.all(
    calls.map((call, i) =>
      limit(async () => {
        const r = await runOne(call, i);
        if (call.id === undefined) return r;
        const observation = r.observation.map((m) => (m.role === 'tool' && m.toolCallId === undefined ? { ...m, toolCallId: call.id } : m));
        return { ...r, observation };
      }),
    ),
  );
}

/**
 * Gives each tool message of a turn's observation the id of the call it answers when the call has one and the message
 * has none: the k-th tool message answers the k-th call (only when there is one tool message per call). Every
 * environment's observation passes through it in the rollout engine, so an id-answering template (Kimi K2's
 * `## Return of functions.NAME:IDX`) sees the id whether the turn made one call or several, from a built-in or a
 * custom environment. Other messages are returned as they are.
 */
export function withCallIds(action: ParsedAction, observation: readonly Message[]): readonly Message[] {
  if (action.kind !== 'tool') return observation;
  const calls = action.calls.length > 0 ? action.calls : [action.call];
  if (calls.every((c) => c.id === undefined) || observation.filter((m) => m.role === 'tool').length !== calls.length) return observation;
  let k = 0;
  return observation.map((m) => {
    if (m.role !== 'tool') return m;
    const id = calls[k++]!.id;
    return m.toolCallId === undefined && id !== undefined ? { ...m, toolCallId: id } : m;
  });
}
