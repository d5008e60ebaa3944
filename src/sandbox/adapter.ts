import type { Sandbox } from '../types/exec-result.js';
import { parseNumberFlag } from '../util/number-flag.js';

/** One command-line flag an adapter reads (`agentrl sandbox-serve --<name> …`). */
export interface SandboxAdapterFlag {
  /** `string` flags take a value (numbers are parsed by the adapter); `boolean` flags take none. */
  readonly type: 'string' | 'boolean';
  /** The flag may be given several times (its value is then a string array). */
  readonly multiple?: boolean;
  /** Value placeholder in the usage text, e.g. `<n>`. */
  readonly placeholder?: string;
  /** What the flag does for this adapter, one line of usage text. */
  readonly help: string;
}

/** Options every adapter understands, from the shared flags `--timeout-ms`, `--max-output-bytes`, `--memory-mb`. */
export interface SandboxAdapterCommonOptions {
  /** Default per-call wall-clock limit, ms. */
  readonly timeoutMs?: number;
  /** Bytes kept per output stream. */
  readonly maxOutputBytes?: number;
  /** Memory limit, MiB (each adapter says what it bounds). */
  readonly memoryMb?: number;
}

/** Flag values as `node:util` `parseArgs` returns them. */
export type SandboxAdapterFlagValues = Readonly<Record<string, string | boolean | readonly (string | boolean)[] | undefined>>;

/**
 * How the CLI finds and builds one sandbox backend. Each adapter folder (`adapters/<name>/`) has an `adapter.ts` whose
 * `sandboxAdapter` export is one of these; `loadSandboxAdapters` discovers them, so a new adapter needs no edit in the
 * CLI. The descriptor itself imports nothing heavy: `create` loads the adapter (and its optional dependencies) lazily.
 */
export interface SandboxAdapter<O = Record<string, unknown>> {
  /** The `--backend` value, e.g. `'local'` (the folder's name). */
  readonly name: string;
  /** One line for usage texts. */
  readonly summary: string;
  /** Whether `agentrl sandbox-serve` can serve it (a client of another server, like `remote`, says false). */
  readonly servable: boolean;
  /** Flags of this adapter beyond the common ones, by name (without `--`). */
  readonly flags: Readonly<Record<string, SandboxAdapterFlag>>;
  /**
   * The adapter's options from flag values and the common options.
   * @throws UsageError when a flag value is malformed (e.g. not a number).
   */
  optionsFromFlags(values: SandboxAdapterFlagValues, common: SandboxAdapterCommonOptions): O;
  /**
   * Builds the sandbox, resolved once it can run calls.
   * @throws ConfigError when the options are invalid (the adapter's own validation).
   */
  create(options: O): Promise<Sandbox>;
  /** Calls the sandbox built from `options` runs at once (its workers or pool size). */
  capacity(options: O): number;
}

/**
 * The number in flag `key`, or undefined when absent (the CLI's one number-flag parser, `parseNumberFlag`).
 * @throws UsageError (`USAGE_INVALID`; the CLI answers it with its usage and exit code 2) when it is not a number.
 */
export function numberFlag(values: SandboxAdapterFlagValues, key: string): number | undefined {
  return parseNumberFlag(key, values[key]);
}
