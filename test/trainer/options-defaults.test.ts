import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { TRAINER_DEFAULTS, type Environment, type TrainerOptions } from 'agentrl';
import { mockBackend, scriptedSampler } from 'agentrl/testing';
import { trainerOptionsSchema } from '../../src/trainer/config.js';
import { resolveTrainerOptions } from '../../src/trainer/resolved-options.js';
import { schemaKeyPaths } from '../../src/errors/config-issues.js';
import { localRenderer } from '../helpers/local-renderer.js';

// The Trainer's defaults are stated once, in TRAINER_DEFAULTS. This test holds the two other places that show them to
// it: what resolving actually fills in (the schema and the resolvers), and each option's `@default` in its TSDoc.

const OPTIONS_FILE = fileURLToPath(new URL('../../src/trainer/options.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));

/**
 * Every option's `@default` texts, by dotted path, read from the `TrainerOptions` interface with the type checker, and
 * whether the option is declared in options.ts (else in a type the Trainer shares, e.g. `LrSchedule`, `AdamParams`).
 */
function documentedDefaults(paths: readonly string[]): Map<string, { texts: string[]; ownDeclaration: boolean }> {
  const config = ts.getParsedCommandLineOfConfigFile(
    TSCONFIG,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  const program = ts.createProgram([OPTIONS_FILE], { ...config!.options, noEmit: true });
  const checker = program.getTypeChecker();
  const decl = program
    .getSourceFile(OPTIONS_FILE)!
    .statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'TrainerOptions');
  const root = checker.getTypeAtLocation(decl!.name);
  const out = new Map<string, { texts: string[]; ownDeclaration: boolean }>();
  for (const path of paths) {
    let type: ts.Type | undefined = root;
    let symbol: ts.Symbol | undefined;
    for (const key of path.split('.')) {
      symbol = type && checker.getPropertyOfType(checker.getNonNullableType(type), key);
      type = symbol && checker.getTypeOfSymbol(symbol);
    }
    expect(symbol, `${path} is declared in TrainerOptions`).toBeDefined();
    const texts = symbol!
      .getJsDocTags(checker)
      .filter((t) => t.name === 'default')
      .map((t) => ts.displayPartsToString(t.text).trim());
    out.set(path, { texts, ownDeclaration: (symbol!.declarations ?? []).some((d) => d.getSourceFile().fileName === OPTIONS_FILE) });
  }
  return out;
}

/** The value a `@default` text states (`8`, `'drop'`, `` `{ maxStaleness: 0 }` ``, `1 (off)`), or undefined for prose (`none`). */
function statedValue(text: string): { value: unknown } | undefined {
  for (const candidate of [text, text.replace(/\s*\(.*\)$/s, '')]) {
    const expr = candidate.trim().replace(/^`(.*)`$/s, '$1');
    try {
      return { value: new Function(`return (${expr});`)() as unknown };
    } catch {
      // prose, not a value
    }
  }
  return undefined;
}

const at = (o: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined), o);

describe('the Trainer defaults are stated once (TRAINER_DEFAULTS)', () => {
  const paths = schemaKeyPaths(trainerOptionsSchema);
  let given: TrainerOptions;
  let docs: Map<string, { texts: string[]; ownDeclaration: boolean }>;
  beforeAll(async () => {
    const renderer = await localRenderer();
    const env: Environment = { name: 'base', tools: [], initialMessages: () => [{ role: 'user', content: 'q' }], step: async () => ({ done: true }) };
    given = {
      backend: mockBackend({ renderer, sampler: scriptedSampler({ renderer, script: () => '1' }) }),
      env,
      reward: () => ({ reward: 0, correct: false, validFormat: true }),
      loss: { kind: 'importance_sampling' },
      dataset: [{ id: 'a', question: 'q', answer: '1' }],
    };
    docs = documentedDefaults(paths);
  }, 120_000);

  // Options that are off unless given, given with their required fields only: their other fields take defaults.
  const switchedOn = (o: TrainerOptions): TrainerOptions => ({
    ...o,
    eval: { dataset: o.dataset, every: 1 },
    kl: { coef: 0.1 },
    dynamicSampling: { maxAttempts: 2 },
  });

  it('resolving fills in exactly TRAINER_DEFAULTS (and the derived runName), nothing else', () => {
    const input = switchedOn(given);
    const resolved = resolveTrainerOptions(input);
    for (const path of paths) {
      if (at(input, path) !== undefined || path === 'runName') continue;
      expect(at(resolved, path), `${path}: resolved vs TRAINER_DEFAULTS`).toEqual(at(TRAINER_DEFAULTS, path));
    }
    expect(resolved.runName).toBe('base · importance_sampling · 8×8 · lr 4e-5');
  });

  it("each option's @default states the value TRAINER_DEFAULTS gives it, and only a default the Trainer applies", () => {
    // Filled in: absent from the input (the switched-on options given with their required fields only) and set after.
    const input = switchedOn(given);
    const resolved = resolveTrainerOptions(input);
    const isDocumented = (path: string, value: unknown): boolean => {
      const own = docs.get(path)?.texts ?? [];
      if (own.some((t) => statedValue(t) !== undefined)) return true; // agreement is checked below
      const parent = path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : undefined;
      const key = path.slice(path.lastIndexOf('.') + 1);
      if (parent !== undefined && (docs.get(parent)?.texts ?? []).some((t) => at(statedValue(t)?.value, key) !== undefined)) return true;
      const children = paths.filter((p) => p.startsWith(`${path}.`) && !p.slice(path.length + 1).includes('.'));
      return (
        typeof value === 'object' &&
        value !== null &&
        children.length > 0 &&
        children.every((c) => at(TRAINER_DEFAULTS, c) === undefined || isDocumented(c, at(TRAINER_DEFAULTS, c)))
      );
    };
    for (const path of paths) {
      const value = at(TRAINER_DEFAULTS, path);
      const applied = at(input, path) === undefined && at(resolved, path) !== undefined;
      const { texts, ownDeclaration } = docs.get(path)!;
      for (const text of texts) {
        const stated = statedValue(text);
        if (value !== undefined && applied) expect(stated?.value, `${path}: @default ${text}`).toEqual(value);
        // A shared type's own default (`LrSchedule.warmupSteps`) is applied by the code that reads that type.
        else if (ownDeclaration || value !== undefined) expect(stated, `${path}: @default ${text} states a value the Trainer does not fill in`).toBeUndefined();
      }
      if (value !== undefined) expect(isDocumented(path, value), `${path}: its default ${JSON.stringify(value)} is not in its TSDoc`).toBe(true);
    }
    // Where a parent states a whole object, its fields agree with TRAINER_DEFAULTS too.
    for (const path of paths) {
      for (const text of docs.get(path)!.texts) {
        const stated = statedValue(text)?.value;
        if (typeof stated === 'object' && stated !== null) expect(stated, `${path}: @default ${text}`).toEqual(at(TRAINER_DEFAULTS, path));
      }
    }
  });

  it('is deeply frozen', () => {
    const walk = (v: unknown, path: string): void => {
      if (typeof v !== 'object' || v === null) return;
      expect(Object.isFrozen(v), path).toBe(true);
      for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    };
    walk(TRAINER_DEFAULTS, 'TRAINER_DEFAULTS');
  });
});
