import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import * as zm from 'zod/mini';
import { defineTool, ZodVersionError } from '../../src/index.js';
import { assertZod4Object, assertZodPeer } from '../../src/util/zod-peer.js';

// Hazard: a project whose schemas come from another zod than agentrl's (zod 3, `zod/v3`, a non-object schema) used to
// fail far from the cause (`z.toJSONSchema` throwing inside defineTool, or TS2589 in the types). It must be one
// typed error that names the tool and what was found.
describe('zod peer checks', () => {
  it('accepts the zod 4 agentrl resolves and zod 4 object schemas (classic and mini)', () => {
    expect(() => assertZodPeer()).not.toThrow();
    expect(() => assertZod4Object(z.object({ a: z.number() }), 'x')).not.toThrow();
    expect(() => assertZod4Object(zm.object({ a: zm.number() }), 'x')).not.toThrow();
    expect(() => assertZod4Object(z.strictObject({}), 'x')).not.toThrow();
  });

  it.each([
    ['a zod 3 schema (zod/v3)', z3.object({ a: z3.number() }), /zod 3 schema/],
    ['a zod 4 string schema', z.string(), /zod string schema, not z\.object/],
    ['a zod 4 array schema', z.array(z.number()), /zod array schema/],
    ['a plain JSON schema object', { type: 'object', properties: {} }, /not a zod schema/],
    ['null', null, /null, not a zod schema/],
    ['a string', 'z.object()', /string, not a zod schema/],
  ])('defineTool refuses %s with a ZodVersionError naming the tool', (_what, schema, found) => {
    let err: unknown;
    try {
      defineTool({ name: 'price', description: 'd', inputSchema: schema as never, execute: () => '' });
    } catch (e) {
      err = e;
    }
    expect(ZodVersionError.isInstance(err)).toBe(true);
    const e = err as ZodVersionError;
    expect(e.code).toBe('ZOD_VERSION');
    expect(e.where).toBe("defineTool('price').inputSchema");
    expect(e.found).toMatch(found);
    expect(e.message).toMatch(/zod \^4\.0\.0 \(a peer dependency\).*npm install zod@\^4/);
  });
});
