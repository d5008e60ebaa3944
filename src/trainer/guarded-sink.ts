import type { WarningEvent } from './events.js';
import type { MetricsSink } from './metrics-sink.js';

/** Bounds on every metrics sink of a run (Trainer option `sinkLimits`). */
export interface SinkLimits {
  /**
   * Longest wait for one call of a sink (`write`, `trajectory`, `turn`, …) in ms; a call still pending then is
   * abandoned (counted, one `warning`) and the sink's next call starts. The Trainer waits for a step's `write` at
   * most this long, and not at all once the sink has timed out. @default 5000
   */
  readonly callTimeoutMs?: number;
  /** Calls waiting for a sink at most; past it new calls are dropped (counted, one `warning` at the end). @default 1000 */
  readonly maxQueuedCalls?: number;
  /**
   * Longest wait at the end of the run for a sink's queued calls and its `close()`, in ms (then they are dropped).
   * `wandbSink`'s own `finishTimeoutMs` (30 s) fits within the default. @default 35000
   */
  readonly closeTimeoutMs?: number;
}

/** The defaults of {@link SinkLimits}. */
export const DEFAULT_SINK_LIMITS: Required<SinkLimits> = { callTimeoutMs: 5_000, maxQueuedCalls: 1_000, closeTimeoutMs: 35_000 };

type Method = 'config' | 'rolloutStart' | 'turn' | 'trajectory' | 'eval' | 'warning' | 'write';
interface Job {
  readonly method: Method;
  readonly arg: unknown;
  readonly done?: () => void;
}

/** A sink behind a bounded queue: what the Trainer writes to, never throwing and never waiting past its limits. */
export interface GuardedSink extends MetricsSink {
  /** Queues one call of an optional method (ignored when the sink lacks it). */
  call(method: Exclude<Method, 'write'>, arg: unknown): void;
  /** Resolves once the record is written, or dropped, or after `callTimeoutMs` (at once for a sink that timed out). */
  write(record: Readonly<Record<string, number | string>>): Promise<void>;
  /** Drains the queue and closes the sink within `closeTimeoutMs`; never rejects. */
  close(): Promise<void>;
  /** Calls that threw, timed out, or were dropped (queue full, or left at close). */
  readonly counts: { readonly threw: number; readonly timedOut: number; readonly dropped: number };
}

/** `p`'s value, or `'late'` after `ms` (the timer is cleared either way); a rejection of `p` in time rejects. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Wraps `sink` so that its failures and stalls never end or hang a run: every call goes through one bounded queue
 * (in order) and gets `callTimeoutMs`; a call that throws or rejects, one that times out, and calls dropped (queue
 * full, or still queued when `close` runs out of time) are each reported once per sink and kind through `warn` (the
 * Trainer's `warning` event, code `sink_failed`), with counts.
 * @param label - how messages name the sink, e.g. `'metrics sink #0'`.
 */
export function guardSink(sink: MetricsSink, label: string, limits: SinkLimits, warn: (e: WarningEvent) => void): GuardedSink {
  const { callTimeoutMs, maxQueuedCalls, closeTimeoutMs } = { ...DEFAULT_SINK_LIMITS, ...limits };
  const queue: Job[] = [];
  const counts = { threw: 0, timedOut: 0, dropped: 0 };
  const warned = new Set<string>();
  let stalled = false;
  let closing = false;
  let pumping: Promise<void> | undefined;
  const once = (kind: string, message: string, count?: number) => {
    if (warned.has(kind)) return;
    warned.add(kind);
    warn({ code: 'sink_failed', message: `${label} ${message}`, ...(count !== undefined ? { count } : {}) });
  };

  const run = async (job: Job): Promise<void> => {
    const fn = sink[job.method] as ((a: unknown) => unknown) | undefined;
    if (typeof fn !== 'function') return;
    try {
      const r = Promise.resolve().then(() => fn.call(sink, job.arg));
      r.catch(() => {}); // a late rejection of an abandoned call
      if ((await within(r, callTimeoutMs)) === 'late') {
        counts.timedOut += 1;
        stalled = true;
        once(
          'timeout',
          `did not finish ${job.method}() within ${callTimeoutMs} ms (sinkLimits.callTimeoutMs); the call is abandoned and the run goes on without waiting for this sink`,
        );
      }
    } catch (e) {
      counts.threw += 1;
      once(
        'threw',
        `failed in ${job.method}(): ${e instanceof Error ? e.message : String(e)} (the run goes on; further failures of this sink are counted, not reported)`,
      );
    }
  };
  const pump = (): Promise<void> =>
    (pumping ??= (async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        await run(job);
        job.done?.();
      }
      pumping = undefined;
    })());
  const enqueue = (job: Job): boolean => {
    if (closing || queue.length >= maxQueuedCalls) {
      counts.dropped += 1;
      job.done?.();
      return false;
    }
    queue.push(job);
    void pump();
    return true;
  };

  return {
    counts,
    call(method, arg) {
      if (typeof sink[method] === 'function') enqueue({ method, arg });
    },
    async write(record) {
      let done!: () => void;
      const written = new Promise<void>((resolve) => (done = resolve));
      if (!enqueue({ method: 'write', arg: record, done }) || stalled) return;
      await within(written, callTimeoutMs);
    },
    async close() {
      const t0 = performance.now();
      const left = () => Math.max(0, closeTimeoutMs - (performance.now() - t0));
      // A sink that already timed out does not hold the end of the run for what is queued.
      if (!stalled && pumping) await within(pumping, left());
      closing = true;
      counts.dropped += queue.splice(0).length;
      if (typeof sink.close === 'function' && left() > 0) {
        const r = Promise.resolve().then(() => sink.close!());
        r.catch(() => {});
        try {
          if ((await within(r, left())) === 'late')
            once('close', `did not close within ${closeTimeoutMs} ms (sinkLimits.closeTimeoutMs); the run ends without it`);
        } catch (e) {
          once('close_threw', `failed in close(): ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      if (counts.dropped > 0)
        once(
          'dropped',
          `dropped ${counts.dropped} call(s) (queue of ${maxQueuedCalls} full, or still queued at the end): their rows are missing from this sink`,
          counts.dropped,
        );
    },
  };
}
