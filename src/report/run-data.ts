import { ConfigError } from '../errors/config-error.js';
import { open, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { TrajectoryRecord } from '../trainer/trajectory-log.js';
import { DEFAULT_MAX_RECORD_BYTES, readJsonRecord, scanJsonLines, type SkippedRecord } from './jsonl-stream.js';

/** One row of `metrics.jsonl`: `step` plus metric values (numbers; strings are kept but not plotted). */
export type MetricsRow = Readonly<Record<string, number | string>> & { readonly step: number };

/**
 * What the index keeps of one `trajectories.jsonl` record: the fields a list shows, and where the full record
 * lies in the file ({@link readTrajectory} reads it on demand). Fields of the wrong type in the file are `null`.
 */
export interface TrajectoryEntry {
  readonly step: number;
  /** The record's id, cut to 200 characters for display. */
  readonly id: string;
  /** Position among the step's records in file order (how the dashboard addresses a trajectory). */
  readonly index: number;
  readonly reward: number | null;
  readonly correct: boolean | null;
  readonly stopReason: string | null;
  readonly toolCalls: number | null;
  readonly advantage: number | null;
  /** Byte offset and length of the record's line in `trajectories.jsonl`. */
  readonly offset: number;
  readonly length: number;
}

/** Records of one run file that were skipped: how many, and the first few with their line numbers. */
export interface RunFileWarning {
  readonly file: 'metrics.jsonl' | 'trajectories.jsonl' | 'config.json';
  readonly skipped: number;
  /** Up to 5 examples, e.g. `{ line: 12, reason: 'not JSON (…)' }`. */
  readonly examples: readonly SkippedRecord[];
}

/** What a run directory holds, as read by {@link readRun} or kept current by {@link RunIndex}. */
export interface RunData {
  /** Display name: `config.json`'s `runName` when set (the Trainer option), else the directory's base name. */
  readonly name: string;
  /** The directory's base name (a timestamp for the example jobs), shown as detail next to `name`. */
  readonly detail: string;
  /** Absolute path of the run directory. */
  readonly dir: string;
  /** `metrics.jsonl` rows sorted by step; for a step written twice, the last row wins. */
  readonly metrics: readonly MetricsRow[];
  /** Index of `trajectories.jsonl` in file order (empty when the run logged none). */
  readonly trajectories: readonly TrajectoryEntry[];
  /** `config.json`, when present and readable. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Skipped records per file (malformed JSON, wrong shape, over the size limit); empty when none. */
  readonly warnings: readonly RunFileWarning[];
}

/** Options of {@link readRun} and {@link RunIndex}. */
export interface RunReadOptions {
  /** Longest record parsed, bytes; longer ones are skipped and counted. @default 64 MiB */
  readonly maxRecordBytes?: number;
  /** Largest `config.json` read, bytes. @default 4 MiB */
  readonly maxConfigBytes?: number;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

class FileCounter {
  skipped = 0;
  examples: SkippedRecord[] = [];
  constructor(readonly file: RunFileWarning['file']) {}
  add(s: SkippedRecord): void {
    this.skipped++;
    if (this.examples.length < 5) this.examples.push(s);
  }
  reset(): void {
    this.skipped = 0;
    this.examples = [];
  }
  warning(): RunFileWarning | undefined {
    return this.skipped > 0 ? { file: this.file, skipped: this.skipped, examples: [...this.examples] } : undefined;
  }
}

interface Cursor {
  end: number;
  lines: number;
  ino: number;
}

/**
 * A run directory read incrementally: each {@link RunIndex.refresh} reads only what was appended to
 * `metrics.jsonl` and `trajectories.jsonl` since the last one (a file that shrank or was replaced, as a resumed
 * run's truncation does, is read again from the start). Memory holds the metrics rows and one small
 * {@link TrajectoryEntry} per trajectory, never the file text, so a multi-GiB `trajectories.jsonl` opens.
 * A line still being written (no newline yet) is left for the next refresh unless `final` is passed.
 */
export class RunIndex {
  readonly dir: string;
  readonly #opts: RunReadOptions;
  #byStep = new Map<number, MetricsRow>();
  #trajectories: TrajectoryEntry[] = [];
  #perStep = new Map<number, TrajectoryEntry[]>();
  #config: Record<string, unknown> | undefined;
  #cursors = new Map<string, Cursor>();
  #counters = { metrics: new FileCounter('metrics.jsonl'), trajectories: new FileCounter('trajectories.jsonl'), config: new FileCounter('config.json') };
  #configStamp = '';

  constructor(dir: string, opts: RunReadOptions = {}) {
    this.dir = resolve(dir);
    this.#opts = opts;
  }

  /**
   * Reads what changed since the last call.
   * @param final - also parse a last line without a newline (the run has finished writing).
   * @throws ConfigError (path `runDir`) when the directory does not exist or holds no `metrics.jsonl`.
   */
  async refresh(final = false): Promise<void> {
    const s = await stat(this.dir).catch(() => undefined);
    if (!s?.isDirectory()) throw new ConfigError('run directory', [{ path: 'runDir', message: `run directory not found: ${this.dir}` }]);
    const metricsPath = join(this.dir, 'metrics.jsonl');
    if (!(await stat(metricsPath).catch(() => undefined)))
      throw new ConfigError('run directory', [{ path: 'runDir', message: `no metrics.jsonl in ${this.dir} (is it a Trainer logDir?)` }]);
    await this.#scan(
      metricsPath,
      final,
      () => {
        this.#byStep.clear();
        this.#counters.metrics.reset();
      },
      (value, span) => {
        const row = value as Record<string, unknown> | null;
        if (row === null || typeof row !== 'object' || Array.isArray(row) || num(row['step']) === null) return 'not a metrics row (needs a numeric step)';
        const clean: Record<string, number | string> = {};
        for (const [k, v] of Object.entries(row)) if (typeof v === 'number' || typeof v === 'string') clean[k] = v;
        void span;
        this.#byStep.set(row['step'] as number, clean as MetricsRow);
        return undefined;
      },
      this.#counters.metrics,
    );
    const trajPath = join(this.dir, 'trajectories.jsonl');
    if (await stat(trajPath).catch(() => undefined)) {
      await this.#scan(
        trajPath,
        final,
        () => {
          this.#trajectories = [];
          this.#perStep.clear();
          this.#counters.trajectories.reset();
        },
        (value, span) => this.#addTrajectory(value, span),
        this.#counters.trajectories,
      );
    }
    await this.#readConfig();
  }

  #addTrajectory(value: unknown, span: { offset: number; length: number }): string | undefined {
    const r = value as Record<string, unknown> | null;
    if (r === null || typeof r !== 'object' || Array.isArray(r)) return 'not a trajectory record';
    const step = num(r['step']);
    if (step === null) return 'trajectory record without a numeric step';
    const list = this.#perStep.get(step) ?? [];
    const entry: TrajectoryEntry = {
      step,
      id: typeof r['id'] === 'string' ? r['id'].slice(0, 200) : String(list.length),
      index: list.length,
      reward: num(r['reward']),
      correct: typeof r['correct'] === 'boolean' ? r['correct'] : null,
      stopReason: typeof r['stopReason'] === 'string' ? r['stopReason'].slice(0, 200) : null,
      toolCalls: num(r['toolCalls']),
      advantage: num(r['advantage']),
      offset: span.offset,
      length: span.length,
    };
    list.push(entry);
    this.#perStep.set(step, list);
    this.#trajectories.push(entry);
    return undefined;
  }

  async #scan(
    path: string,
    final: boolean,
    reset: () => void,
    onRecord: (v: unknown, span: { offset: number; length: number }) => string | undefined,
    counter: FileCounter,
  ): Promise<void> {
    const s = await stat(path);
    let cur = this.#cursors.get(path);
    if (cur && (s.ino !== cur.ino || s.size < cur.end || !(await endsLineAt(path, cur.end)))) cur = undefined;
    if (!cur) reset();
    if (cur && s.size === cur.end) return;
    const res = await scanJsonLines(path, {
      from: cur?.end ?? 0,
      linesBefore: cur?.lines ?? 0,
      final,
      ...(this.#opts.maxRecordBytes !== undefined ? { maxRecordBytes: this.#opts.maxRecordBytes } : {}),
      onRecord: (v, span) => onRecord(v, span),
      onSkip: (x) => counter.add(x),
    });
    this.#cursors.set(path, { end: res.end, lines: res.lines, ino: s.ino });
  }

  async #readConfig(): Promise<void> {
    const path = join(this.dir, 'config.json');
    const s = await stat(path).catch(() => undefined);
    const stamp = s ? `${s.ino}:${s.size}:${s.mtimeMs}` : '-';
    if (stamp === this.#configStamp) return;
    this.#configStamp = stamp;
    this.#config = undefined;
    this.#counters.config.reset();
    if (!s) return;
    const max = this.#opts.maxConfigBytes ?? 4 * 1024 * 1024;
    if (s.size > max) {
      this.#counters.config.add({ line: 1, reason: `config.json of ${s.size} bytes is over the ${max}-byte limit` });
      return;
    }
    const fh = await open(path, 'r');
    try {
      const v = JSON.parse((await fh.readFile('utf8')) || 'null') as unknown;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) this.#config = v as Record<string, unknown>;
      else this.#counters.config.add({ line: 1, reason: 'config.json is not an object' });
    } catch (e) {
      this.#counters.config.add({ line: 1, reason: `not JSON (${(e as Error).message.slice(0, 120)})` });
    } finally {
      await fh.close();
    }
  }

  /** The step numbers that have trajectories, ascending. */
  steps(): number[] {
    return [...this.#perStep.keys()].sort((a, b) => a - b);
  }

  /** The entries of one step, in file order. */
  trajectoriesAt(step: number): readonly TrajectoryEntry[] {
    return this.#perStep.get(step) ?? [];
  }

  /** The run as it stands after the last {@link RunIndex.refresh}. */
  snapshot(): RunData {
    const runName = this.#config?.['runName'];
    const detail = basename(this.dir);
    const warnings = [this.#counters.metrics.warning(), this.#counters.trajectories.warning(), this.#counters.config.warning()].filter(
      (w): w is RunFileWarning => w !== undefined,
    );
    return {
      name: typeof runName === 'string' && runName.trim() !== '' ? runName.trim().slice(0, 120) : detail,
      detail,
      dir: this.dir,
      metrics: [...this.#byStep.values()].sort((a, b) => a.step - b.step),
      trajectories: [...this.#trajectories],
      ...(this.#config ? { config: this.#config } : {}),
      warnings,
    };
  }
}

async function endsLineAt(path: string, end: number): Promise<boolean> {
  if (end === 0) return true;
  const fh = await open(path, 'r');
  try {
    const b = Buffer.alloc(1);
    const { bytesRead } = await fh.read(b, 0, 1, end - 1);
    return bytesRead === 1 && b[0] === 10;
  } finally {
    await fh.close();
  }
}

/**
 * Reads a finished (or live) run directory written by a Trainer with `logDir`: `metrics.jsonl`,
 * `trajectories.jsonl` (indexed, see {@link RunIndex}), `config.json`. Malformed records are skipped and counted
 * in `warnings`, never thrown.
 * @throws ConfigError (path `runDir`) when `dir` is not a directory or holds no `metrics.jsonl`.
 */
export async function readRun(dir: string, opts: RunReadOptions = {}): Promise<RunData> {
  const index = new RunIndex(dir, opts);
  await index.refresh(true);
  return index.snapshot();
}

/**
 * The full record of one indexed trajectory, read from `trajectories.jsonl` at its offset.
 * @returns undefined when the file no longer holds that record there (rewritten since it was indexed) or the record is not an object.
 */
export async function readTrajectory(run: Pick<RunData, 'dir'>, entry: Pick<TrajectoryEntry, 'offset' | 'length'>): Promise<TrajectoryRecord | undefined> {
  if (entry.length > DEFAULT_MAX_RECORD_BYTES * 4) return undefined;
  const v = await readJsonRecord(join(run.dir, 'trajectories.jsonl'), entry.offset, entry.length).catch(() => undefined);
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as TrajectoryRecord) : undefined;
}

/** One line per file with skipped records, e.g. `run-a/trajectories.jsonl: 2 malformed record(s) skipped (line 7: not JSON (…))`. */
export function describeRunWarnings(run: RunData): string[] {
  return run.warnings.map(
    (w) => `${run.detail}/${w.file}: ${w.skipped} malformed record(s) skipped (${w.examples.map((e) => `line ${e.line}: ${e.reason}`).join('; ')})`,
  );
}
