import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTAINER_RUNNER_SOURCE, PYTHON_RUNTIME_SOURCE } from '../../../../adapters/local/python/sources.js';
import { containerSpec } from '../../../../adapters/docker/docker-sandbox.js';
import { resolveDockerOptions } from '../../../../adapters/docker/options.js';

const file = (f: string): string => readFileSync(new URL(`../../../../adapters/local/python/${f}`, import.meta.url), 'utf8');
const joined = (parts: readonly string[]): string => parts.map(file).join('\n');

describe('one Python runner for the local and the Docker sandbox', () => {
  it('ships the .py files of adapters/local/python (regenerate with gen-sources.mjs)', () => {
    expect(PYTHON_RUNTIME_SOURCE).toBe(joined(['common.py', 'zygote.py', 'session.py', 'zygote_main.py']));
    expect(CONTAINER_RUNNER_SOURCE).toBe(joined(['common.py', 'container.py']));
  });

  it('starts every container with that source, so both adapters run model code through the same common.py', () => {
    const cmd = containerSpec(resolveDockerOptions({ image: 'img' }), 'p').Cmd ?? [];
    expect(cmd[2]).toBe('-c');
    expect(cmd[3]).toBe(CONTAINER_RUNNER_SOURCE);
    expect(cmd[3]?.startsWith(file('common.py'))).toBe(true);
    expect(PYTHON_RUNTIME_SOURCE.startsWith(file('common.py'))).toBe(true);
  });

  it('defines the call semantics (_exec_user, _make_stdio) in common.py only', () => {
    for (const f of ['zygote.py', 'session.py', 'container.py']) {
      expect(file(f)).not.toMatch(/^def (_exec_user|_make_stdio|_call_name)\b/m);
      expect(file(f)).not.toMatch(/\bexec\(compile\(req/);
    }
  });

  it('compiles as Python', async () => {
    const { execFileSync } = await import('node:child_process');
    for (const src of [PYTHON_RUNTIME_SOURCE, CONTAINER_RUNNER_SOURCE]) {
      execFileSync('python3', ['-I', '-c', 'import sys; compile(sys.stdin.read(), "<runner>", "exec")'], { input: src });
    }
  });
});
