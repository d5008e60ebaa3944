import type { Example } from '../types/example.js';
import type { Message } from '../types/message.js';
import { DemonstrationError } from '../errors/data-errors.js';

/** One demonstrated tool call, as data: the tool's name and its arguments object. */
export interface DemonstrationCall {
  /** Name of a tool the environment offers. */
  readonly name: string;
  /** The call's arguments, checked field by field against the tool's JSON Schema. @default {} */
  readonly arguments?: Readonly<Record<string, unknown>>;
}

/** What every turn may add: the observation that followed it, instead of running `env.step`. */
export interface TurnObservation {
  /** What the environment answered; when absent `env.step` runs on the turn's call(s). */
  readonly observation?: readonly Message[];
}

/**
 * One demonstrated assistant turn. Written as data, it is rendered by the model family's chat template in the
 * family's own call syntax (Qwen `<tool_call>`, Llama JSON, harmony `to=functions.NAME`, Mistral `[TOOL_CALLS]`, …):
 * - `{ call: { name, arguments } }` (optionally with `say`, the text before the call): one tool call;
 * - `{ calls: [...] }`: several calls in one turn (the environment must allow `parallelToolCalls`);
 * - `{ answer }`: the final answer (optionally after `say`);
 * - `{ say }`: a turn of text alone (it ends the episode like an answer in most environments).
 *
 * `{ text }` (or a plain string in `Demonstration.turns`) is the turn's raw text exactly as the model writes it, call
 * markup included; it is encoded as is.
 */
export type DemonstrationTurn =
  | ({ readonly text: string } & TurnObservation)
  | ({ readonly say?: string; readonly call: DemonstrationCall } & TurnObservation)
  | ({ readonly say?: string; readonly calls: readonly DemonstrationCall[] } & TurnObservation)
  | { readonly say?: string; readonly answer: string; readonly observation?: never }
  | { readonly say: string; readonly observation?: never };

/** A turn after its shape was checked: raw text, or an assistant message to render (calls not yet checked against tools). */
export type CheckedTurn =
  | { readonly kind: 'text'; readonly text: string; readonly observation?: readonly Message[] }
  | {
      readonly kind: 'calls';
      readonly content: string;
      readonly calls: readonly DemonstrationCall[];
      readonly field: 'call' | 'calls';
      readonly observation?: readonly Message[];
    }
  | { readonly kind: 'answer'; readonly content: string };

/** A demonstration after its shape was checked. */
export interface CheckedDemonstration<E extends Example = Example> {
  readonly example: E;
  readonly turns: readonly CheckedTurn[];
}

const TURN_KEYS = ['text', 'say', 'call', 'calls', 'answer', 'observation'] as const;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/**
 * Checks the shape of a demonstration (`{ example: { id, … }, turns: [...] }`) and of each turn (see
 * {@link DemonstrationTurn}), so a wrongly shaped one is a {@link DemonstrationError} naming the example, the turn
 * and the field — never a `TypeError` from deep inside rendering.
 * @param index - the demonstration's place in its list, named when it has no usable example id.
 * @throws DemonstrationError
 */
export function checkDemonstration<E extends Example>(raw: unknown, index: number): CheckedDemonstration<E> {
  const place = `#${index}`;
  if (!isObject(raw)) throw new DemonstrationError(place, -1, `expected an object { example, turns }, got ${kindOf(raw)}`);
  const example = raw['example'];
  const unknown = Object.keys(raw).filter((k) => k !== 'example' && k !== 'turns');
  // Unknown keys first: an example passed where the demonstration goes (the positional call of old) is named as such.
  if (unknown.length > 0) {
    const at = isObject(example) && typeof example['id'] === 'string' ? example['id'] : place;
    throw new DemonstrationError(at, -1, `unknown key(s) ${unknown.map((k) => `'${k}'`).join(', ')} (a demonstration has 'example' and 'turns')`, unknown[0]);
  }
  if (!isObject(example) || typeof example['id'] !== 'string') {
    throw new DemonstrationError(place, -1, `expected 'example' to be a dataset example (an object with a string id), got ${kindOf(example)}`, 'example');
  }
  const id = example['id'];
  const turns = raw['turns'];
  if (!Array.isArray(turns)) throw new DemonstrationError(id, -1, `expected 'turns' to be an array of turns, got ${kindOf(turns)}`, 'turns');
  if (turns.length === 0) throw new DemonstrationError(id, -1, `'turns' is empty: a demonstration needs at least one assistant turn`, 'turns');
  return { example: example as unknown as E, turns: turns.map((t, k) => checkTurn(t, id, k)) };
}

function checkTurn(raw: unknown, id: string, k: number): CheckedTurn {
  const fail = (message: string, field?: string) => new DemonstrationError(id, k, message, field);
  if (typeof raw === 'string') return { kind: 'text', text: raw };
  if (!isObject(raw)) throw fail(`expected a string or a turn object ({ say }, { call }, { calls }, { answer } or { text }), got ${kindOf(raw)}`);
  const unknown = Object.keys(raw).filter((key) => !(TURN_KEYS as readonly string[]).includes(key));
  if (unknown.length > 0) throw fail(`unknown key '${unknown[0]}' (a turn takes ${TURN_KEYS.join(', ')})`, unknown[0]);
  for (const key of ['text', 'say', 'answer'] as const) {
    if (key in raw && typeof raw[key] !== 'string') throw fail(`expected a string, got ${kindOf(raw[key])}`, key);
  }
  const observation = checkObservation(raw['observation'], fail);
  const body = ['text', 'call', 'calls', 'answer'].filter((key) => key in raw);
  if (body.length > 1)
    throw fail(`a turn is one of { text }, { call }, { calls } or { answer }, not ${body.map((b) => `'${b}'`).join(' and ')} together`, body[1]);
  const say = (raw['say'] as string | undefined) ?? '';
  if ('text' in raw) {
    if ('say' in raw) throw fail(`'text' is the raw turn: put the words in it instead of 'say'`, 'say');
    return { kind: 'text', text: raw['text'] as string, ...(observation ? { observation } : {}) };
  }
  if ('call' in raw)
    return { kind: 'calls', content: say, calls: [checkCall(raw['call'], 'call', fail)], field: 'call', ...(observation ? { observation } : {}) };
  if ('calls' in raw) {
    const calls = raw['calls'];
    if (!Array.isArray(calls) || calls.length === 0)
      throw fail(`expected a non-empty array of { name, arguments }, got ${Array.isArray(calls) ? 'an empty array' : kindOf(calls)}`, 'calls');
    return {
      kind: 'calls',
      content: say,
      calls: calls.map((c, i) => checkCall(c, `calls.${i}`, fail)),
      field: 'calls',
      ...(observation ? { observation } : {}),
    };
  }
  if (observation) throw fail(`only a turn that calls a tool is followed by an observation`, 'observation');
  if ('answer' in raw) return { kind: 'answer', content: say ? `${say}\n\n${raw['answer'] as string}` : (raw['answer'] as string) };
  if ('say' in raw) return { kind: 'answer', content: say };
  throw fail(`an empty turn: give one of { say }, { call }, { calls }, { answer } or { text }`);
}

function checkCall(raw: unknown, field: string, fail: (m: string, f?: string) => DemonstrationError): DemonstrationCall {
  if (!isObject(raw)) throw fail(`expected { name, arguments }, got ${kindOf(raw)}`, field);
  const unknown = Object.keys(raw).filter((k) => k !== 'name' && k !== 'arguments');
  if (unknown.length > 0) throw fail(`unknown key (a call has 'name' and 'arguments')`, `${field}.${unknown[0]}`);
  if (typeof raw['name'] !== 'string' || raw['name'] === '')
    throw fail(`expected the tool's name (a non-empty string), got ${kindOf(raw['name'])}`, `${field}.name`);
  const args = raw['arguments'] ?? {};
  if (!isObject(args)) throw fail(`expected an object of arguments, got ${kindOf(args)}`, `${field}.arguments`);
  return { name: raw['name'], arguments: args };
}

function checkObservation(raw: unknown, fail: (m: string, f?: string) => DemonstrationError): readonly Message[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw fail(`expected an array of messages, got ${kindOf(raw)}`, 'observation');
  for (const [i, m] of raw.entries()) {
    if (!isObject(m) || typeof m['role'] !== 'string' || typeof m['content'] !== 'string') {
      throw fail(`expected a message { role, content } (strings)`, `observation.${i}`);
    }
  }
  return raw as Message[];
}

/**
 * One demonstrated episode: the example and the assistant turns a good (or deliberately imperfect) policy would
 * write — as data (`{ call: { name: 'price', arguments: { country: 'Peru' } } }`, then `{ answer: '42' }`), rendered
 * in the model family's own call syntax, or as raw text. Tool results are not written: the environment produces them
 * when the demonstration is rendered, exactly as in a rollout.
 */
export interface Demonstration<E extends Example = Example> {
  /** The dataset example the episode answers. */
  readonly example: E;
  /** The assistant turns, in order: {@link DemonstrationTurn}s (data or `{ text }`) or plain raw-text strings. */
  readonly turns: readonly (string | DemonstrationTurn)[];
}
