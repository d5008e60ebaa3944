import { UsageError } from '../errors/usage-error.js';

/** What a number flag accepts. Bounds are in the unit the flag is given in. */
export interface NumberFlagRule {
  /** Whole numbers only. */
  readonly integer?: boolean;
  /** Smallest accepted value (inclusive). */
  readonly min?: number;
  /** Values must be greater than this (exclusive lower bound; `0` for "positive"). */
  readonly above?: number;
  /** Largest accepted value (inclusive). */
  readonly max?: number;
  /**
   * What the flag expects, for the message `--flag expects <this>, got '<raw>'` (e.g. `'seconds in [1, 86400]'`);
   * default from the rule: `a positive integer`, `an integer ≥ 1`, `an integer in [0, 65535]`, `a number`.
   */
  readonly expects?: string;
}

function describe(rule: NumberFlagRule): string {
  const kind = rule.integer ? 'integer' : 'number';
  if (rule.above === 0 && rule.min === undefined && rule.max === undefined) return `a positive ${kind}`;
  const noun = rule.integer ? 'an integer' : 'a number';
  if (rule.min !== undefined && rule.max !== undefined) return `${noun} in [${rule.min}, ${rule.max}]`;
  const bounds = [
    ...(rule.min !== undefined ? [`≥ ${rule.min}`] : []),
    ...(rule.above !== undefined ? [`> ${rule.above}`] : []),
    ...(rule.max !== undefined ? [`≤ ${rule.max}`] : []),
  ];
  return [noun, ...bounds].join(' ');
}

/**
 * The one parser of the CLI's number flags (every `agentrl` command and sandbox adapter flag): the value of
 * `--flag`, or `undefined` when the flag is absent. The text must be a finite JavaScript number literal (`Number`
 * rules: `1e3`, `0x10` and surrounding spaces are accepted); an empty or blank value is refused (it is not `0`).
 * @param flag - the flag's name without `--`, e.g. `'port'`.
 * @param raw - the value `node:util` `parseArgs` gave (a string, or `undefined` when absent).
 * @throws UsageError (`USAGE_INVALID`) `--flag expects …, got '<raw>'` when the value is not a number, not a string
 *   (a boolean or repeated flag), or breaks `rule`.
 */
export function parseNumberFlag(flag: string, raw: unknown, rule: NumberFlagRule = {}): number | undefined {
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  const ok =
    Number.isFinite(n) &&
    (!rule.integer || Number.isInteger(n)) &&
    (rule.min === undefined || n >= rule.min) &&
    (rule.above === undefined || n > rule.above) &&
    (rule.max === undefined || n <= rule.max);
  if (!ok) throw new UsageError(`--${flag} expects ${rule.expects ?? describe(rule)}, got '${String(raw)}'`);
  return n;
}
