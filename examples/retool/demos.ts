/**
 * Cold-start SFT demonstrations for the embedded model, deliberately imperfect as in the ReTool
 * paper's cold start: most use the interpreter correctly, some compute in the head (and often err),
 * some forget `print` (then retry or guess), some emit a malformed tool call. RL then has something to fix.
 */
import { codeInterpreter, demonstrationDatum, type Datum, type Environment, type Example, type Renderer, type Sandbox } from 'agentrl';
import { mulberry32 } from 'agentrl/internal';
import { pickMixStyle, type StyleMix } from '../shared/demo-styles.js';

/** One demonstrated assistant turn and, for tool turns, the observation that followed it. */
export interface DemoTurn {
  readonly text: string;
  readonly observation?: string;
}

export type DemoStyle = 'tool' | 'head' | 'noprint-retry' | 'noprint-guess' | 'malformed';
const STYLES: StyleMix<DemoStyle> = ['tool', 'head', 'noprint-retry', 'noprint-guess', 'malformed'];

/** A native tool call, formatted as the chat template renders one (`{"name": …, "arguments": …}` with spaces). */
const call = (code: string) => `<tool_call>\n{"name": "code_interpreter", "arguments": {"code": ${JSON.stringify(code)}}}\n</tool_call>`;
const boxed = (a: string) => `The answer is \\boxed{${a}}.`;

/** A wrong-but-plausible mental-arithmetic result: one digit changed. */
function misremember(answer: string, r: () => number): string {
  const digits = answer.split('');
  const i = Math.floor(r() * digits.length);
  const d = Number(digits[i]);
  digits[i] = String((d + 1 + Math.floor(r() * 8)) % 10);
  if (digits[0] === '0' && digits.length > 1) digits[0] = '1';
  return digits.join('');
}

/** Picks a style with the cold-start mix: 50% tool, 25% head, 10% no-print→retry, 5% no-print→guess, 10% malformed. */
export function pickStyle(r: () => number): DemoStyle {
  return pickMixStyle(r, STYLES);
}

/** The demonstrated turns for one problem in one style. Head arithmetic is right 30% of the time. */
export function demoTurns(expression: string, answer: string, style: DemoStyle, r: () => number): DemoTurn[] {
  const out = `${answer}\n`;
  switch (style) {
    case 'tool':
      return [{ text: call(`print(${expression})`), observation: out }, { text: boxed(answer) }];
    case 'head': {
      const guess = r() < 0.3 ? answer : misremember(answer, r);
      return [{ text: `${expression} = ${guess}\n${boxed(guess)}` }];
    }
    case 'noprint-retry':
      return [{ text: call(expression), observation: '' }, { text: call(`print(${expression})`), observation: out }, { text: boxed(answer) }];
    case 'noprint-guess': {
      const guess = misremember(answer, r);
      return [{ text: call(expression), observation: '' }, { text: boxed(guess) }];
    }
    case 'malformed':
      return [{ text: `<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(${expression})"}\n</tool_call>` }];
  }
}

/** Demonstration datums for `examples` (each example's `meta.expression` holds its Python expression). */
export async function buildDemoDatums(
  renderer: Renderer,
  env: Environment,
  examples: readonly Example[],
  opts: { seed: number; maxTokens?: number },
): Promise<{ datums: Datum[]; styles: Record<DemoStyle, number> }> {
  const r = mulberry32(opts.seed);
  const styles: Record<DemoStyle, number> = { tool: 0, head: 0, 'noprint-retry': 0, 'noprint-guess': 0, malformed: 0 };
  const datums: Datum[] = [];
  for (const ex of examples) {
    const style = pickStyle(r);
    styles[style]++;
    const turns = demoTurns(String(ex.meta?.['expression']), ex.answer, style, r).map((t) => ({
      text: t.text,
      ...(t.observation !== undefined ? { observation: [{ role: 'tool' as const, name: 'code_interpreter', content: t.observation }] } : {}),
    }));
    // The demonstrations carry their own interpreter output, so the sandbox-less env is never stepped.
    datums.push(
      await demonstrationDatum(
        renderer,
        env,
        { example: ex, turns },
        { maxToolResponseTokens: Number.MAX_SAFE_INTEGER, ...(opts.maxTokens ? { maxTokens: opts.maxTokens } : {}) },
      ),
    );
  }
  return { datums, styles };
}

/**
 * The tool-mode prompt and tools without a sandbox, for rendering demonstrations (SFT never runs code:
 * the demonstrations carry their own observations). Must match `toolEnv()` in env.ts.
 */
export function renderOnlyEnv(): Environment {
  const noSandbox: Sandbox = {
    name: 'none',
    run: () => Promise.reject(new Error('renderOnlyEnv does not execute code')),
    close: async () => {},
  };
  return codeInterpreter({ sandbox: noSandbox, systemPrompt: null });
}
