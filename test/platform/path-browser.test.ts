import { posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as p from '../../src/platform/path.browser.js';

const segment = fc.constantFrom('a', 'b', 'run-1', '.', '..', '', 'x.json', '/a', 'a/', '/', 'c/../d', './e');

describe('browser path functions match node:path/posix', () => {
  it('join', () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 5 }), (segs) => {
        expect(p.join(...segs)).toBe(posix.join(...segs));
      }),
      { numRuns: 500 },
    );
  });
  it('dirname', () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), (segs) => {
        const path = segs.join('/');
        expect(p.dirname(path)).toBe(posix.dirname(path));
      }),
      { numRuns: 500 },
    );
  });
  it('resolve (working directory /) and relative', () => {
    const cwd = process.cwd;
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), fc.array(segment, { maxLength: 4 }), (a, b) => {
        expect(p.resolve(...a)).toBe(posix.resolve('/', ...a));
        expect(p.relative(a.join('/'), b.join('/'))).toBe(posix.relative(posix.resolve('/', a.join('/')), posix.resolve('/', b.join('/'))));
      }),
      { numRuns: 500 },
    );
    expect(process.cwd).toBe(cwd);
  });
});
