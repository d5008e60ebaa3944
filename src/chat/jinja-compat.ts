import { Template } from '@huggingface/jinja';

/** An AST node of `@huggingface/jinja` (plain objects dispatched on `type`). */
interface Node {
  readonly type: string;
  [key: string]: unknown;
}

const isNode = (x: unknown): x is Node => typeof x === 'object' && x !== null && typeof (x as { type?: unknown }).type === 'string';
const token = (value: string) => ({ value, type: 'Identifier' });

/**
 * The loop filter that replaces `seq | select(TEST, ARG?)` / `seq | reject(TEST, ARG?)` as a for loop's iterable:
 * `x in ARG` / `x not in ARG` for the `in` test, `x is TEST` / `x is not TEST` for a test without an argument, and
 * the item's truth for a bare `select()` / `reject()`. Other forms (another test with an argument) stay as they are.
 */
function loopFilter(loopvar: Node, call: Node): Node | undefined {
  const reject = (call['callee'] as Node)['value'] === 'reject';
  const args = call['args'] as Node[];
  if (args.length === 0) return reject ? { type: 'UnaryExpression', operator: token('not'), argument: loopvar } : loopvar;
  const [test, arg, ...more] = args;
  if (test!.type !== 'StringLiteral' || more.length > 0) return undefined;
  const name = test!['value'] as string;
  if (name === 'in' && arg) return { type: 'BinaryExpression', operator: token(reject ? 'not in' : 'in'), left: loopvar, right: arg };
  if (arg) return undefined;
  return { type: 'TestExpression', operand: loopvar, negate: reject, test: { type: 'Identifier', value: name } };
}

function rewrite(node: unknown): void {
  if (Array.isArray(node)) {
    for (const n of node) rewrite(n);
    return;
  }
  if (!isNode(node)) return;
  if (node.type === 'For' && isNode(node['iterable']) && isNode(node['loopvar']) && node['loopvar'].type === 'Identifier') {
    const it = node['iterable'];
    const filter = it['filter'];
    if (it.type === 'FilterExpression' && isNode(filter) && filter.type === 'CallExpression') {
      const callee = filter['callee'];
      if (isNode(callee) && callee.type === 'Identifier' && (callee['value'] === 'select' || callee['value'] === 'reject')) {
        const test = loopFilter(node['loopvar'], filter);
        if (test) node['iterable'] = { type: 'SelectExpression', lhs: it['operand'], test };
      }
    }
  }
  for (const [k, v] of Object.entries(node)) if (k !== 'type' && typeof v === 'object') rewrite(v);
}

/**
 * Compiles a chat template with `@huggingface/jinja`, first rewriting the Jinja construct that real templates use
 * and 0.5.x lacks: `select` / `reject` with a test as a for loop's iterable (Qwen3-Coder's
 * `{% for json_key in param_fields.keys() | reject("in", handled_keys) %}` fails with "Unknown ArrayValue filter:
 * reject"). It becomes the equivalent loop filter `{% for json_key in param_fields.keys() if json_key not in
 * handled_keys %}`, which the library runs. Anything else is compiled unchanged.
 * @throws whatever `@huggingface/jinja` throws for a template it cannot parse.
 */
export function compileChatTemplate(source: string): Template {
  const template = new Template(source);
  rewrite((template as unknown as { parsed: unknown }).parsed);
  return template;
}
