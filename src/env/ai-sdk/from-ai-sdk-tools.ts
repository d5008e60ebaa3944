import { z } from '../../util/zod.js';
import type { Example } from '../../types/example.js';
import type { JsonSchema } from '../../types/message.js';
import type { Tool } from '../define-tool.js';
import type { ToolContext } from '../types.js';
import { ConfigError } from '../../errors/config-error.js';
import { toolNameProblem } from '../tool-definitions.js';

/**
 * The shape of an AI SDK tool (`tool({ description, inputSchema, execute })` from `ai`) that agentrl reads: a zod
 * schema, or an AI SDK `jsonSchema(…)` schema (`{ jsonSchema, validate? }`), and an `execute`.
 */
export interface AiSdkToolLike {
  /** A string, or (AI SDK 7) a function of the call context, called with `{ context: undefined }`. */
  readonly description?: unknown;
  /** A zod schema, or an AI SDK `jsonSchema(…)` object `{ jsonSchema, validate? }`, describing the tool's input. */
  readonly inputSchema: unknown;
  /** Called as `execute(input, { toolCallId, messages, abortSignal, context, experimental_context })`. */
  readonly execute?: (input: never, options: never) => unknown;
}

function describe(t: AiSdkToolLike): string {
  const d = t.description;
  if (typeof d === 'function') return String((d as (o: { context: unknown }) => unknown)({ context: undefined }) ?? '');
  return typeof d === 'string' ? d : '';
}

function isZod(s: unknown): s is z.ZodType {
  return typeof s === 'object' && s !== null && '_zod' in s;
}

/** The JSON schema of an AI SDK input schema, and a zod object that validates arguments the same way. */
function convertSchema(name: string, schema: unknown): { json: JsonSchema; zod: z.ZodObject } {
  if (isZod(schema)) {
    const { $schema: _drop, ...json } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
    const zod =
      schema instanceof z.ZodObject
        ? schema
        : z.looseObject({}).superRefine((v, ctx) => {
            const r = schema.safeParse(v);
            if (!r.success) for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path as PropertyKey[] });
          });
    return { json: json as JsonSchema, zod };
  }
  const s = schema as
    | { jsonSchema?: unknown; validate?: (v: unknown) => { success: boolean; error?: { message?: string } } | PromiseLike<unknown> }
    | undefined;
  const json = s?.jsonSchema;
  if (typeof json !== 'object' || json === null || typeof (json as PromiseLike<unknown>).then === 'function') {
    throw new ConfigError('fromAiSdkTools tools', [
      {
        path: `${name}.inputSchema`,
        message: `fromAiSdkTools: tool '${name}' has an inputSchema that is neither a zod schema nor an AI SDK jsonSchema() with a plain JSON schema`,
      },
    ]);
  }
  const zod = z.looseObject({}).superRefine((v, ctx) => {
    const r = s?.validate?.(v) as { success?: boolean; error?: { message?: string } } | undefined;
    if (r && r.success === false) ctx.addIssue({ code: 'custom', message: r.error?.message ?? 'invalid arguments' });
  });
  return { json: json as JsonSchema, zod };
}

/** The observation text of what an AI SDK tool returned (a string as is, anything else as JSON; a stream: its last value). */
async function resultText(out: unknown): Promise<string> {
  let v = await out;
  if (v !== null && typeof v === 'object' && Symbol.asyncIterator in v) {
    let last: unknown;
    for await (const x of v as AsyncIterable<unknown>) last = x;
    v = last;
  }
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
}

/**
 * AI SDK tools as agentrl tools, for `toolEnvironment({ tools: fromAiSdkTools(tools), … })`: the keys are the tool
 * names, each `inputSchema` (zod, or `jsonSchema(…)`) becomes the tool definition's JSON schema and validates the
 * model's arguments (a mismatch is an observation naming the problem), and `execute(input, options)` runs with the
 * AI SDK's options: `toolCallId` (`<trajectory id>#<call index>`), `abortSignal` (the trajectory's signal),
 * `context` (AI SDK 7) and `experimental_context` (earlier versions): the trajectory's {@link ToolContext}; `messages: []`. A string result is the observation;
 * any other value is sent as JSON. A tool without `execute` answers `Error: … has no execute`.
 * @throws ConfigError when a key is not a valid tool name, or a schema cannot be converted (path `<name>.inputSchema`).
 */
export function fromAiSdkTools<E extends Example = Example>(tools: Readonly<Record<string, AiSdkToolLike>>): Tool<z.ZodObject, E>[] {
  return Object.entries(tools).map(([name, t]) => {
    const bad = toolNameProblem(name);
    if (bad) throw new ConfigError('fromAiSdkTools tools', [{ path: name.slice(0, 80), message: bad }]);
    const { json, zod } = convertSchema(name, t.inputSchema);
    return {
      definition: { type: 'function', function: { name, description: describe(t), parameters: json } },
      inputSchema: zod,
      async execute(args: Record<string, unknown>, ctx: ToolContext<E>): Promise<string> {
        if (!t.execute) return `Error: tool ${name} has no execute (it runs on the client in the AI SDK)`;
        const options = { toolCallId: `${ctx.trajectoryId}#${ctx.toolCalls}`, messages: [], abortSignal: ctx.signal, context: ctx, experimental_context: ctx };
        return resultText(t.execute(args as never, options as never));
      },
    };
  });
}
