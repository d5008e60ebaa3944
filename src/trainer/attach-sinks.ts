import type { EventEmitter } from 'eventemitter3';
import type { TrainerEvents } from './events.js';
import type { MetricsSink } from './metrics-sink.js';

type Hook = 'rolloutStart' | 'turn' | 'trajectory' | 'eval' | 'warning';
const EVENT_OF: Record<Hook, keyof TrainerEvents> = { rolloutStart: 'rollout:start', turn: 'turn', trajectory: 'trajectory', eval: 'eval', warning: 'warning' };

/**
 * Connects user sinks to a Trainer's events for one `train()` call: hands each its `config`, routes the events to the
 * methods it has, and returns sinks whose `close` first waits for the calls still in flight. A sink method that
 * throws or rejects is reported once per sink (`console.warn`) and never reaches the training loop.
 * @returns `sinks` (to write step records to and close) and `detach` (removes the listeners).
 */
export function attachSinks(
  trainer: EventEmitter<TrainerEvents>,
  userSinks: readonly MetricsSink[],
  config: Readonly<Record<string, unknown>>,
): { sinks: MetricsSink[]; detach: () => void } {
  const offs: (() => void)[] = [];
  const sinks = userSinks.map((sink, i) => {
    const pending = new Set<Promise<unknown>>();
    let reported = false;
    const guard = (what: string, call: () => unknown): void => {
      const report = (e: unknown) => {
        if (!reported) console.warn(`agentrl: metrics sink #${i} failed in ${what}(): ${(e as Error)?.message ?? String(e)} (further failures of this sink are not printed)`);
        reported = true;
      };
      try {
        const r = call();
        if (r && typeof (r as Promise<unknown>).then === 'function') {
          const p = (r as Promise<unknown>).catch(report).finally(() => pending.delete(p));
          pending.add(p);
        }
      } catch (e) {
        report(e);
      }
    };
    if (sink.config) guard('config', () => sink.config!(config));
    for (const hook of Object.keys(EVENT_OF) as Hook[]) {
      const method = sink[hook] as ((e: unknown) => unknown) | undefined;
      if (!method) continue;
      const listener = (e: unknown) => guard(hook, () => method.call(sink, e));
      const event = EVENT_OF[hook];
      trainer.on(event, listener as never);
      offs.push(() => trainer.off(event, listener as never));
    }
    const wrapped: MetricsSink = {
      write: (record) => sink.write(record),
      close: async () => {
        await Promise.all(pending);
        await sink.close?.();
      },
    };
    return wrapped;
  });
  return { sinks, detach: () => offs.forEach((off) => off()) };
}
