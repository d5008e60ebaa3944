import type { JsonSchema } from '../types/message.js';

/** The first way `value` does not fit `schema`: the dotted path of the field and what is wrong. */
export interface ArgumentIssue {
  /** Dotted path inside the arguments, e.g. `country` or `items.2.sku`. */
  readonly path: string;
  /** What is wrong, e.g. `expected one of "Peru", "Chile", got "peru"`. */
  readonly message: string;
}

const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function fitsType(v: unknown, t: string): boolean {
  switch (t) {
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'null':
      return v === null;
    case 'string':
    case 'boolean':
      return typeof v === t;
    default:
      return true;
  }
}

/**
 * Checks tool-call arguments against a tool's JSON Schema, field by field, and names the first field that does not fit
 * (missing required property, unknown property where `additionalProperties: false`, wrong `type`, value outside
 * `enum` / `const`, string or array length and number bounds). Keywords it does not know are not checked (the
 * environment's own validation still runs when the call executes).
 * @returns `null` when the arguments fit.
 */
export function argumentIssue(value: unknown, schema: JsonSchema, path = ''): ArgumentIssue | null {
  const at = (p: string) => (path ? `${path}.${p}` : p);
  const issue = (message: string): ArgumentIssue => ({ path: path || '(arguments)', message });
  if (schema.type !== undefined) {
    const types = typeof schema.type === 'string' ? [schema.type] : schema.type;
    if (!types.some((t) => fitsType(value, t))) return issue(`expected ${types.join(' or ')}, got ${typeOf(value)} ${show(value)}`);
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    return issue(`expected one of ${schema.enum.map(show).join(', ')}, got ${show(value)}`);
  }
  if ('const' in schema && JSON.stringify(schema['const']) !== JSON.stringify(value)) return issue(`expected ${show(schema['const'])}, got ${show(value)}`);
  if (typeof value === 'string') {
    const min = schema['minLength'];
    const max = schema['maxLength'];
    if (typeof min === 'number' && value.length < min) return issue(`expected at least ${min} characters, got ${value.length}`);
    if (typeof max === 'number' && value.length > max) return issue(`expected at most ${max} characters, got ${value.length}`);
  }
  if (typeof value === 'number') {
    const min = schema['minimum'];
    const max = schema['maximum'];
    if (typeof min === 'number' && value < min) return issue(`expected ≥ ${min}, got ${value}`);
    if (typeof max === 'number' && value > max) return issue(`expected ≤ ${max}, got ${value}`);
  }
  if (Array.isArray(value)) {
    const min = schema['minItems'];
    const max = schema['maxItems'];
    if (typeof min === 'number' && value.length < min) return issue(`expected at least ${min} items, got ${value.length}`);
    if (typeof max === 'number' && value.length > max) return issue(`expected at most ${max} items, got ${value.length}`);
    if (schema.items) {
      for (const [i, item] of value.entries()) {
        const inner = argumentIssue(item, schema.items, at(String(i)));
        if (inner) return inner;
      }
    }
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in obj)) return { path: at(key), message: 'required, missing' };
    const props = schema.properties ?? {};
    for (const [key, v] of Object.entries(obj)) {
      const prop = props[key];
      if (prop) {
        const inner = argumentIssue(v, prop, at(key));
        if (inner) return inner;
      } else if (schema['additionalProperties'] === false) {
        const known = Object.keys(props);
        return { path: at(key), message: `unknown field (the tool takes ${known.length ? known.join(', ') : 'no arguments'})` };
      }
    }
  }
  return null;
}
