import type { EventEmitter } from 'eventemitter3';
import type { WarningEvent } from './events.js';
import type { TrainerEvents } from './trainer-events.js';
import type { MetricsSink } from './metrics-sink.js';
import { guardSink, type GuardedSink, type SinkLimits } from './guarded-sink.js';

type Hook = 'rolloutStart' | 'turn' | 'trajectory' | 'eval' | 'warning';
const EVENT_OF: Record<Hook, keyof TrainerEvents> = { rolloutStart: 'rollout:start', turn: 'turn', trajectory: 'trajectory', eval: 'eval', warning: 'warning' };

/**
 * Connects user sinks to a Trainer's events for one `train()` call: each sink goes behind {@link guardSink} (one
 * bounded queue, a deadline per call and at close), gets its `config`, and the events it has methods for. A sink
 * that throws, rejects, stalls or overflows is reported once per sink and kind — a `warning` event (`sink_failed`),
 * and one `console.warn` line per sink — and never reaches the training loop.
 * @returns `sinks` (to write step records to and close; neither throws nor waits past the limits) and `detach`
 *   (removes the listeners).
 */
export function attachSinks(
  trainer: EventEmitter<TrainerEvents>,
  userSinks: readonly MetricsSink[],
  config: Readonly<Record<string, unknown>>,
  limits: SinkLimits = {},
): { sinks: GuardedSink[]; detach: () => void } {
  const offs: (() => void)[] = [];
  const sinks = userSinks.map((sink, i) => {
    let printed = false;
    const warn = (e: WarningEvent) => {
      if (!printed) console.warn(`agentrl: ${e.message}`);
      printed = true;
      trainer.emit('warning', e);
    };
    const guarded = guardSink(sink, `metrics sink #${i}`, limits, warn);
    guarded.call('config', config);
    for (const hook of Object.keys(EVENT_OF) as Hook[]) {
      if (typeof sink[hook] !== 'function') continue;
      // A sink's own failure warnings are not fed back to it (a failing warning() would only queue more).
      const listener = (e: unknown) => {
        if (hook === 'warning' && (e as WarningEvent).code === 'sink_failed' && (e as WarningEvent).message.startsWith(`metrics sink #${i} `)) return;
        guarded.call(hook, e);
      };
      const event = EVENT_OF[hook];
      trainer.on(event, listener as never);
      offs.push(() => trainer.off(event, listener as never));
    }
    return guarded;
  });
  return {
    sinks,
    detach: () =>
      offs.forEach((off) => {
        off();
      }),
  };
}
