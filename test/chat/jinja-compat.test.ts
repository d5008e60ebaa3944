import { describe, expect, it } from 'vitest';
import { Template } from '@huggingface/jinja';
import { compileChatTemplate } from '../../src/chat/jinja-compat.js';

const render = (src: string, ctx: Record<string, unknown>) => compileChatTemplate(src).render(ctx);

describe('compileChatTemplate: select / reject with a test in a for loop (missing from @huggingface/jinja 0.5)', () => {
  it('the library alone fails on the construct Qwen3-Coder uses', () => {
    expect(() => new Template('{% for k in d.keys() | reject("in", skip) %}{{ k }}{% endfor %}').render({ d: { a: 1 }, skip: [] })).toThrow(/reject/);
  });

  it('rewrites reject("in", …) and select("in", …) to the loop filter, order kept', () => {
    const d = { type: 'string', description: 'x', minLength: 1, 'x-extra': true, enum: ['a'] };
    expect(render('{% for k in d.keys() | reject("in", skip) %}[{{ k }}]{% endfor %}', { d, skip: ['type', 'description', 'enum'] })).toBe(
      '[minLength][x-extra]',
    );
    expect(render('{% for k in d.keys() | select("in", keep) %}[{{ k }}]{% endfor %}', { d, keep: ['enum', 'type'] })).toBe('[type][enum]');
    expect(render('{% for x in xs | reject("in", ["b"]) %}{{ x }}{% else %}none{% endfor %}', { xs: ['b'] })).toBe('none');
  });

  it('tests without an argument and the bare truth filter', () => {
    expect(render('{% for x in xs | reject("none") %}{{ x }},{% endfor %}', { xs: [1, null, 2] })).toBe('1,2,');
    expect(render('{% for x in xs | select("string") %}{{ x }},{% endfor %}', { xs: ['a', 3, 'b'] })).toBe('a,b,');
    expect(render('{% for x in xs | select() %}{{ x }},{% endfor %}', { xs: [0, 1, '', 'z'] })).toBe('1,z,');
    expect(render('{% for x in xs | reject() %}[{{ x }}]{% endfor %}', { xs: [0, 1, '', 'z'] })).toBe('[0][]');
  });

  it('loop variables and nesting still work; other templates compile unchanged', () => {
    expect(
      render('{% for x in xs | reject("in", ["b"]) %}{{ loop.index }}{{ x }}{% for y in ys | select("in", [x]) %}!{% endfor %} {% endfor %}', {
        xs: ['a', 'b', 'c'],
        ys: ['c'],
      }),
    ).toBe('1a 2c! ');
    expect(render('{{ xs | length }}{% for x in xs if x > 1 %}{{ x }}{% endfor %}', { xs: [1, 2, 3] })).toBe('323');
    // A form it does not rewrite (a test with an argument other than `in`) fails as before.
    expect(() => render('{% for x in xs | select("divisibleby", 3) %}{{ x }}{% endfor %}', { xs: [3] })).toThrow();
  });
});
