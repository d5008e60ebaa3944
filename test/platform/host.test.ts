import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as browser from '../../src/platform/host.browser.js';
import * as node from '../../src/platform/host.js';
import { sha256 } from '../../src/platform/sha256.js';

describe('platform host: the browser versions agree with Node', () => {
  it('sha256Hex equals node:crypto on any string (lone surrogates, astral, empty, block edges)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        const want = createHash('sha256').update(s).digest('hex');
        expect(browser.sha256Hex(s)).toBe(want);
        expect(node.sha256Hex(s)).toBe(want);
      }),
      { numRuns: 300 },
    );
  });

  it('sha256 of bytes equals node:crypto around every padding boundary (0–200 bytes)', () => {
    for (let n = 0; n <= 200; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 131 + n) & 0xff);
      expect(Buffer.from(sha256(bytes)).toString('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });

  it('utf8ByteLength equals Buffer.byteLength on any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        expect(browser.utf8ByteLength(s)).toBe(Buffer.byteLength(s, 'utf8'));
        expect(node.utf8ByteLength(s)).toBe(Buffer.byteLength(s, 'utf8'));
      }),
    );
  });

  it('yieldToEventLoop lets a timer due now run before it resolves, and keeps order', async () => {
    for (const impl of [browser, node]) {
      const seen: string[] = [];
      setTimeout(() => seen.push('timer'), 0);
      await new Promise((r) => setTimeout(r, 5)); // the timer is due
      const order = [impl.yieldToEventLoop().then(() => seen.push('a')), impl.yieldToEventLoop().then(() => seen.push('b'))];
      await Promise.all(order);
      expect(seen).toEqual(['timer', 'a', 'b']);
    }
  });

  it('allowManyAbortListeners (Node): 100 listeners on one signal raise no MaxListeners warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const c = new AbortController();
      node.allowManyAbortListeners(c.signal);
      for (let i = 0; i < 100; i++) c.signal.addEventListener('abort', () => undefined);
      browser.allowManyAbortListeners(new AbortController().signal); // a no-op: browsers set no limit
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('a page has no terminal and no process id; both tags are stable', () => {
    expect(browser.stderrIsTTY()).toBe(false);
    expect(browser.processTag()).toBe(browser.processTag());
    expect(node.processTag()).toBe(String(process.pid));
    expect(browser.moduleDir(import.meta.url)).toBe('/');
  });
});
