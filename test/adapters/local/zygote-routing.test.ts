import { describe, expect, it } from 'vitest';
import { localSandbox } from '../../../adapters/local/index.js';
import { processesWithMarker } from 'agentrl/testing/conformance';

// Without naming sympy, so that routing alone decides which zygote forks the call.
const sympyPreloaded = 'import sys\nprint(any(m.startswith("sym" + "py") for m in sys.modules))';

describe('localSandbox fork-server: light and full zygotes', () => {
  it('forks code that names no heavy module from the light zygote, and code that does from the full one', async () => {
    const sb = localSandbox({ workers: 1, preload: ['math', 'sympy'], lightPreload: ['math'] });
    try {
      expect((await sb.run({ code: sympyPreloaded })).stdout).toBe('False\n');
      expect((await sb.run({ code: `${sympyPreloaded}  # sympy` })).stdout).toBe('True\n');
      const r = await sb.run({ code: 'import sympy\nprint(sympy.factor(sympy.Symbol("x")**2 - 1))' });
      expect(r.stdout).toBe('(x - 1)*(x + 1)\n');
    } finally {
      await sb.close();
    }
    expect(processesWithMarker(sb.instanceId)).toEqual([]);
  });

  it('still runs a heavy import hidden from routing (slower, same result)', async () => {
    const sb = localSandbox({ workers: 1, preload: ['math', 'numpy'], lightPreload: ['math'] });
    try {
      const r = await sb.run({ code: 'import importlib\nnp = importlib.import_module("num" + "py")\nprint(np.ones(3).sum())' });
      expect(r.status).toBe('ok');
      expect(r.stdout).toBe('3.0\n');
    } finally {
      await sb.close();
    }
  });

  it('uses one zygote with everything preloaded when lightPreload is false', async () => {
    const sb = localSandbox({ workers: 1, preload: ['math', 'sympy'], lightPreload: false });
    try {
      expect((await sb.run({ code: sympyPreloaded })).stdout).toBe('True\n');
    } finally {
      await sb.close();
    }
  });

  it('serves calls from both zygotes without isolation too (fallback path)', async () => {
    const sb = localSandbox({ workers: 1, preload: ['math', 'sympy'], lightPreload: ['math'], isolation: 'none', onWarning: () => {} });
    try {
      expect((await sb.run({ code: sympyPreloaded })).stdout).toBe('False\n');
      expect((await sb.run({ code: 'import sympy\nprint(sympy.Integer(6) / 4)' })).stdout).toBe('3/2\n');
      const t = await sb.run({ code: 'while True:\n    pass', timeoutMs: 500 });
      expect(t.status).toBe('timeout');
      expect((await sb.run({ code: 'print("after")' })).stdout).toBe('after\n');
    } finally {
      await sb.close();
    }
    expect(processesWithMarker(sb.instanceId)).toEqual([]);
  });
});
