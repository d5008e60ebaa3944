/**
 * One abort listener per signal, shared by every pending operation of agentrl that watches that signal.
 *
 * Hazard guarded: the trainer passes ONE long-lived signal to every rollout. An operation that adds its own
 * `'abort'` listener while it waits (a queued SQL query, a sandbox call, a retry sleep) puts one listener per
 * concurrent operation on that signal; past 10, Node prints `MaxListenersExceededWarning: Possible EventTarget memory
 * leak detected`, and any path that forgets `removeEventListener` leaks a closure per call for the whole run.
 * Here the signal carries at most one listener whatever the concurrency, and each registration is undone by the
 * function it returns (call it when the operation ends, in a `finally`).
 */

type Callback = (reason: unknown) => void;

/** Pending callbacks per signal; the entry (and the signal's one listener) goes when the last one is removed. */
const pending = new WeakMap<AbortSignal, Set<{ readonly fn: Callback }>>();
/** The listener installed for each callback set, to remove it when the set empties. */
const listeners = new WeakMap<Set<{ readonly fn: Callback }>, () => void>();

/**
 * Calls `fn(signal.reason)` once when `signal` aborts, through a listener shared with every other {@link onAbort}
 * registration on that signal (so the signal's listener count stays at 1). Returns the function that cancels the
 * registration; calling it again, or after the abort, does nothing. As with `addEventListener`, a signal that has
 * already aborted never fires: check `signal.aborted` first. `undefined` signals are accepted (nothing to watch).
 * @internal
 */
export function onAbort(signal: AbortSignal | undefined, fn: Callback): () => void {
  if (signal === undefined || signal.aborted) return () => undefined;
  let set = pending.get(signal);
  if (set === undefined) {
    const created = new Set<{ readonly fn: Callback }>();
    set = created;
    pending.set(signal, created);
    const fire = (): void => {
      pending.delete(signal);
      for (const entry of [...created]) entry.fn(signal.reason);
      created.clear();
    };
    listeners.set(created, fire);
    signal.addEventListener('abort', fire, { once: true });
  }
  const entry = { fn };
  set.add(entry);
  const own = set;
  return () => {
    if (!own.delete(entry) || own.size > 0) return;
    const fire = listeners.get(own);
    if (fire !== undefined) signal.removeEventListener('abort', fire);
    listeners.delete(own);
    if (pending.get(signal) === own) pending.delete(signal);
  };
}
