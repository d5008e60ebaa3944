import type { ConfigIssue } from './config-error.js';

/** The parts of a zod (v4) issue this module reads. */
interface ZodIssueLike {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly expected?: unknown;
  readonly keys?: readonly string[];
  readonly minimum?: number | bigint;
  readonly maximum?: number | bigint;
  readonly inclusive?: boolean;
  readonly origin?: string;
  readonly values?: readonly unknown[];
  readonly divisor?: number;
}

/** Common names from other libraries (PyTorch, Tinker, OpenAI, Hugging Face) and the key agentrl calls them. */
const ALIASES: Readonly<Record<string, string>> = {
  lr: 'learningRate',
  learning_rate: 'learningRate',
  weight_decay: 'weightDecay',
  max_grad_norm: 'gradClipNorm',
  gradClip: 'gradClipNorm',
  steps: 'maxSteps',
  max_steps: 'maxSteps',
  numSteps: 'maxSteps',
  batchSize: 'questionsPerBatch',
  batch_size: 'questionsPerBatch',
  group_size: 'groupSize',
  numSamples: 'groupSize',
  num_samples: 'groupSize',
  n: 'groupSize',
  top_p: 'topP',
  top_k: 'topK',
  max_tokens: 'maxTurnTokens',
  maxTokens: 'maxTurnTokens',
  max_turns: 'maxTurns',
  data: 'dataset',
  environment: 'env',
  model: 'backend',
  log_dir: 'logDir',
  outputDir: 'logDir',
};

/** Edit distance (insert, delete, substitute: 1 each), compared case-insensitively. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[t.length]!;
}

/**
 * The known key an unknown `key` most likely meant: a listed alias (`lr` → `learningRate`), the same word in
 * another case or with `_` (`group_size` → `groupSize`), or a known key within a third of its length in edits.
 * `allKeys` (every key of the whole options object, as dotted paths) finds keys placed at the wrong level
 * (`temperature` at the top → `sampling.temperature`).
 */
export function closestKey(key: string, known: readonly string[], allKeys: readonly string[] = []): string | undefined {
  const alias = ALIASES[key];
  if (alias && known.includes(alias)) return alias;
  const squash = (s: string) => s.replace(/[_-]/g, '').toLowerCase();
  const same = known.find((k) => squash(k) === squash(key));
  if (same) return same;
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = distance(key, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  if (best !== undefined && bestD <= Math.max(1, Math.floor(key.length / 3))) return best;
  const target = alias ?? key;
  return allKeys.find((p) => p.split('.').at(-1) === target || squash(p.split('.').at(-1)!) === squash(target));
}

/** Short JSON of a value for a message (`undefined`, `a function`, or JSON cut to 60 characters). */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'bigint') return `${v}n`;
  try {
    const s = JSON.stringify(v);
    return s && s.length > 60 ? s.slice(0, 57) + '…' : String(s);
  } catch {
    return typeof v;
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): { found: boolean; value: unknown } {
  let cur: unknown = root;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null || !(k in (cur as object))) return { found: false, value: undefined };
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return { found: true, value: cur };
}

const article = (t: string) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);

/** A zod default message (ours are written in lower case and start with 'expected' or a key). */
const isZodDefault = (m: string) => /^(Invalid|Too (small|big)|Unrecognized|Expected|Required)\b/.test(m);

/** What a zod issue expected, in agentrl's wording. */
function expectedText(i: ZodIssueLike): string {
  switch (i.code) {
    case 'invalid_type':
      return `expected ${article(String(i.expected))}`;
    case 'too_small': {
      const n = Number(i.minimum);
      if (i.origin === 'array' || i.origin === 'set') return `expected at least ${n} item${n === 1 ? '' : 's'}`;
      if (i.origin === 'string') return n === 1 ? 'expected a non-empty string' : `expected at least ${n} characters`;
      return `expected a number ${i.inclusive === false ? '>' : '≥'} ${n}`;
    }
    case 'too_big': {
      const n = Number(i.maximum);
      if (i.origin === 'array' || i.origin === 'set') return `expected at most ${n} item${n === 1 ? '' : 's'}`;
      if (i.origin === 'string') return `expected at most ${n} characters`;
      return `expected a number ${i.inclusive === false ? '<' : '≤'} ${n}`;
    }
    case 'invalid_value':
      return `expected one of ${(i.values ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union':
      return 'matches none of the accepted forms (check its `kind`)';
    case 'not_multiple_of':
      return `expected a multiple of ${i.divisor}`;
    default:
      return 'is not valid';
  }
}

/**
 * Turns zod issues into {@link ConfigIssue}s with one wording everywhere: `<dotted.path>: <what was expected>, got
 * <value>` (`missing (expected a number)` for an absent required key), and `unknown key (did you mean
 * 'learningRate'?)` for unknown keys. No raw zod phrases ("Invalid input: expected number, received undefined").
 * @param input - the object that was parsed (to quote the offending values).
 * @param knownKeysAt - the keys accepted at a dotted path (`''` = the root), for suggestions.
 */
export function configIssuesFromZod(
  issues: readonly ZodIssueLike[],
  input: unknown,
  knownKeysAt: (path: string) => readonly string[] = () => [],
  allKeys: readonly string[] = [],
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const i of issues) {
    const path = i.path.map(String).join('.');
    if (i.code === 'unrecognized_keys') {
      for (const key of i.keys ?? []) {
        const guess = closestKey(key, knownKeysAt(path), allKeys);
        const full = guess?.includes('.') ? guess : guess ? [path, guess].filter(Boolean).join('.') : undefined;
        out.push({ path: [path, key].filter(Boolean).join('.'), message: `unknown key${full ? ` (did you mean '${full}'?)` : ''}` });
      }
      continue;
    }
    const { found, value } = valueAt(input, i.path);
    if (!found || value === undefined) {
      const what = isZodDefault(i.message) ? expectedText(i).replace(/^expected /, '') : i.message.replace(/^expected /, '');
      out.push({ path, message: `missing (expected ${what})` });
      continue;
    }
    const base = isZodDefault(i.message) ? expectedText(i) : i.message;
    out.push({ path, message: /\bgot\b/.test(base) || /^rows? \d/.test(base) ? base : `${base}, got ${describeValue(value)}` });
  }
  return out;
}

/** Unwraps optional / default / nullable / pipe wrappers of a zod schema (reads zod's public `def`). */
function unwrap(schema: unknown): unknown {
  let s = schema as { def?: { type?: string; innerType?: unknown; in?: unknown }; shape?: unknown } | undefined;
  for (let k = 0; k < 10 && s?.def; k++) {
    if (s.def.innerType) s = s.def.innerType as typeof s;
    else if (s.def.type === 'pipe' && s.def.in) s = s.def.in as typeof s;
    else break;
  }
  return s;
}

/** The keys of the object schema at a dotted path of `schema` (empty when there is none). */
export function schemaKeysAt(schema: unknown, path: string): string[] {
  let s = unwrap(schema) as { shape?: Record<string, unknown> } | undefined;
  for (const part of path ? path.split('.') : []) s = unwrap(s?.shape?.[part]) as typeof s;
  return s?.shape ? Object.keys(s.shape) : [];
}

/** Every key path of an object schema, dotted (`sampling.temperature`), for wrong-level suggestions. */
export function schemaKeyPaths(schema: unknown, prefix = ''): string[] {
  const keys = schemaKeysAt(schema, '');
  const shape = (unwrap(schema) as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
  return keys.flatMap((k) => [prefix + k, ...schemaKeyPaths(shape[k], `${prefix}${k}.`)]);
}
