/**
 * The sandbox benchmark's mix through the other backends, side by side with the local fork-server:
 * docker (warm pool + in-container runner), remote (remoteSandbox → agentrl sandbox-serve on
 * loopback → local fork-server) and isolated-vm (the same mix rewritten in JavaScript).
 *
 *   node --import tsx bench/sandbox-backends.bench.ts [--rounds 5] [--concurrency 2] [--json out.json]
 *
 * Docker is skipped (with the reason) when no daemon is reachable; it uses the local test image
 * from scripts/docker-image.sh (or AGENTRL_DOCKER_IMAGE, without the /usr bind).
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import Docker from 'dockerode';
import { benchSandboxes, RETOOL_MIX, type BenchRow, type NamedSandbox, type Snippet } from './sandbox.bench.js';
import { localSandbox } from '../adapters/local/index.js';
import { dockerSandbox } from '../adapters/docker/index.js';
import { createSandboxServer, remoteSandbox } from '../adapters/remote/index.js';
import { isolatedVmSandbox } from '../adapters/isolated-vm/index.js';
import type { Sandbox } from '../src/types/exec-result.js';

/** {@link RETOOL_MIX} in JavaScript (same names, same work where JS has it; sympy → a hand-rolled root search). */
export const RETOOL_MIX_JS: readonly Snippet[] = [
  { name: 'arithmetic', code: 'const a = 3n ** 40n + 7n * 11n; console.log(a % 1000003n, (a / 97n) % 13n)' },
  { name: 'sympy', code: 'const roots = []; for (let x = -100; x <= 100; x++) if (x * x - 5 * x + 6 === 0) roots.push(x); console.log(roots)' },
  {
    name: 'numpy',
    code: 'const n = 8, a = Array.from({ length: n * n }, (_, i) => i); let t = 0; for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) t += a[i * n + k] * a[i * n + k]; console.log(t)',
  },
  {
    name: 'itertools',
    code: 'let c = 0; const p = (xs, acc) => { if (!xs.length) { if (acc[0] < acc[acc.length - 1]) c++; return; } xs.forEach((x, i) => p([...xs.slice(0, i), ...xs.slice(i + 1)], [...acc, x])); }; p([0,1,2,3,4,5], []); console.log(c)',
  },
  {
    name: 'fractions',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source run in the sandbox, with its own template literal
    code: 'const g = (a, b) => b ? g(b, a % b) : a; let n = 0n, d = 1n; for (let k = 1n; k < 200n; k++) { const kd = k * (k + 1n); n = n * kd + d; d = d * kd; const q = g(n, d); n /= q; d /= q; } console.log(`${n}/${d}`)',
  },
  { name: 'raises', code: 'function f(n) { if (n === 0) throw new RangeError("division by zero"); return 10 / n } console.log(f(0))' },
];

async function dockerReachable(): Promise<string | undefined> {
  try {
    await new Docker().ping();
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

function print(rows: readonly BenchRow[]): void {
  const snippets = Object.keys(rows[0]?.perSnippetMedianMs ?? {});
  const pad = (s: string, n: number) => s.padEnd(n);
  const base = rows[0];
  console.log(
    [
      pad('sandbox', 30),
      pad('calls/s', 9),
      pad('p50 ms', 8),
      pad('p95 ms', 8),
      pad('×thr', 6),
      ...snippets.map((s) => pad(s, 11)),
      pad('timeout ms', 18),
      'wrong',
    ].join(' '),
  );
  for (const r of rows) {
    console.log(
      [
        pad(r.name, 30),
        pad(r.callsPerSec.toFixed(1), 9),
        pad(r.p50Ms.toFixed(1), 8),
        pad(r.p95Ms.toFixed(1), 8),
        pad(base ? (r.callsPerSec / base.callsPerSec).toFixed(2) : '-', 6),
        ...snippets.map((s) => pad((r.perSnippetMedianMs[s] ?? NaN).toFixed(1), 11)),
        pad(`${r.timeoutReturnMs.toFixed(0)} (${r.timeoutStatus})`, 18),
        String(r.wrong),
      ].join(' '),
    );
  }
}

async function main(): Promise<void> {
  const arg = (k: string, d: number): number => {
    const i = process.argv.indexOf(`--${k}`);
    return i > 0 ? Number(process.argv[i + 1]) : d;
  };
  const rounds = arg('rounds', 5);
  const concurrency = arg('concurrency', 2);
  const jsonAt = process.argv.indexOf('--json');
  const timeoutMs = 30_000;
  const toClose: Sandbox[] = [];
  const closers: (() => Promise<void>)[] = [];
  console.log(
    `load average: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on ${availableParallelism()} CPUs`,
  );
  console.log(`sandbox backends bench: rounds=${rounds} (${rounds * RETOOL_MIX.length} calls each) concurrency=${concurrency}`);
  try {
    const python: NamedSandbox[] = [];
    const local = localSandbox({ mode: 'fork-server', workers: concurrency, timeoutMs });
    toClose.push(local);
    python.push({ name: 'local fork-server', sandbox: local });

    const why = await dockerReachable();
    if (why === undefined) {
      const image = process.env['AGENTRL_DOCKER_IMAGE'] ?? 'agentrl-sandbox:local';
      const docker = dockerSandbox({ image, binds: process.env['AGENTRL_DOCKER_IMAGE'] ? [] : ['/usr:/usr:ro'], poolSize: concurrency, timeoutMs });
      toClose.push(docker);
      await docker.ready();
      python.push({ name: 'docker (warm pool)', sandbox: docker });
    } else {
      console.log(`docker: SKIPPED (no daemon reachable: ${why})`);
    }

    const served = localSandbox({ mode: 'fork-server', workers: concurrency, timeoutMs });
    toClose.push(served);
    const server = createSandboxServer(served);
    closers.push(() => server.close());
    const { url } = await server.listen({ port: 0, host: '127.0.0.1' });
    const remote = remoteSandbox({ url, concurrency, timeoutMs });
    toClose.push(remote);
    python.push({ name: 'remote → sandbox-serve → local', sandbox: remote });

    const rows = await benchSandboxes(python, { rounds, concurrency });

    const ivm = isolatedVmSandbox({ workers: concurrency, timeoutMs });
    toClose.push(ivm);
    const [ivmRow] = await benchSandboxes([{ name: 'isolated-vm (JS mix)', sandbox: ivm }], { rounds, concurrency, mix: RETOOL_MIX_JS });
    // The shared harness's timeout probe is Python; redo it in JavaScript.
    const t = performance.now();
    const tr = await ivm.run({ code: 'while (true) {}', timeoutMs: 1000 });
    if (ivmRow) rows.push({ ...ivmRow, timeoutReturnMs: performance.now() - t, timeoutStatus: tr.status });

    print(rows);
    if (jsonAt > 0) writeFileSync(process.argv[jsonAt + 1]!, JSON.stringify(rows, null, 2));
  } finally {
    for (const c of closers) await c();
    await Promise.all(toClose.map((s) => s.close()));
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
