import type { FastifyReply } from 'fastify';

const signals = new WeakMap<object, AbortSignal>();

/**
 * An AbortSignal that aborts when the client goes away before its response was fully sent (it
 * disconnected, or the connection was cut by a timeout or `close()`). Handlers pass it to long work
 * (a sandbox call, a model request) so that nobody computes answers for a closed socket.
 * Same signal for every call with the same reply.
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const res = reply.raw;
  const known = signals.get(res);
  if (known) return known;
  const ctl = new AbortController();
  signals.set(res, ctl.signal);
  const onClose = (): void => {
    if (!res.writableFinished) ctl.abort(new Error('client disconnected'));
  };
  if (res.closed || res.destroyed) onClose();
  else res.once('close', onClose);
  return ctl.signal;
}
