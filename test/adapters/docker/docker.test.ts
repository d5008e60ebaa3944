import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, SandboxClosedError, SandboxUnavailableError } from '../../../src/errors/index.js';
import { containerSpec, dockerSandbox, SANDBOX_LABEL } from '../../../adapters/docker/index.js';
import { resolveDockerOptions } from '../../../adapters/docker/options.js';
import { replyToResult } from '../../../adapters/docker/protocol.js';
import { TEST_BINDS, TEST_IMAGE, probeDocker, sandboxContainers } from './docker-env.js';

describe('dockerSandbox without a daemon', () => {
  it('builds a container spec with every hardening flag', () => {
    // Hazard: a forgotten flag (network, uid, caps) silently weakens every call's isolation.
    const spec = containerSpec(resolveDockerOptions({ image: 'img', memoryMb: 256, cpus: 0.5, pidsLimit: 32, tmpfsMb: 16 }), 'p1');
    const h = spec.HostConfig!;
    expect(h.NetworkMode).toBe('none');
    expect(spec.NetworkDisabled).toBe(true);
    expect(h.ReadonlyRootfs).toBe(true);
    expect(h.Tmpfs).toEqual({ '/tmp': expect.stringContaining('size=16m') });
    expect(h.Memory).toBe(256 * 1024 * 1024);
    expect(h.MemorySwap).toBe(h.Memory);
    expect(h.NanoCpus).toBe(5e8);
    expect(h.PidsLimit).toBe(32);
    expect(spec.User).toBe('65534:65534');
    expect(h.CapDrop).toEqual(['ALL']);
    expect(h.SecurityOpt).toEqual(['no-new-privileges']);
    expect(h.Init).toBe(true);
    expect(spec.Tty).toBe(false);
    expect(spec.OpenStdin).toBe(true);
    expect(spec.Labels?.[SANDBOX_LABEL]).toBe('docker');
    // No trainer environment variable reaches the container.
    expect(spec.Env?.some((e) => e.startsWith('PATH='))).toBe(true);
    expect(spec.Env?.some((e) => /KEY|TOKEN|SECRET|npm_/i.test(e))).toBe(false);
  });

  it('rejects unknown keys and bad values with dotted paths', () => {
    expect(() => dockerSandbox({ image: 'x', poolSize: 0, bogus: 1 } as never)).toThrow(ConfigError);
    try {
      dockerSandbox({ image: '', network: true } as never);
    } catch (e) {
      expect(ConfigError.isInstance(e)).toBe(true);
      expect((e as ConfigError).issues.map((i) => i.path)).toEqual(expect.arrayContaining(['docker.image', 'docker.network']));
    }
  });

  it('renders runner replies with head/tail caps, U+FFFD and MemoryError → memory', () => {
    const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
    const r = replyToResult({
      id: 1,
      status: 'error',
      exit_code: 1,
      signal: null,
      stdout: b64(Buffer.from([0x61, 0xff, 0x62])),
      stderr: b64('Traceback...\nMemoryError\n'),
      stdout_bytes: 3,
      stderr_bytes: 25,
      wall_ms: 12.5,
      cpu_ms: 3,
    });
    expect(r.status).toBe('memory');
    expect(r.stdout).toBe('a\uFFFDb');
    expect(r.truncated).toBe(false);
    const cut = replyToResult({
      id: 2,
      status: 'ok',
      exit_code: 0,
      signal: null,
      stdout: b64('head'),
      stdout_tail: b64('tail'),
      stderr: '',
      stdout_bytes: 1000,
      stderr_bytes: 0,
      wall_ms: 1,
      cpu_ms: null,
    });
    expect(cut.truncated).toBe(true);
    expect(cut.stdout).toBe('head\n[... 992 bytes truncated ...]\ntail');
    expect(cut.cpuMs).toBeUndefined();
  });

  it('fails run() with SandboxUnavailableError when the daemon is unreachable', async () => {
    // Hazard: a dead daemon must surface as a typed infrastructure error, not hang the rollout.
    const sb = dockerSandbox({ image: 'x', poolSize: 1, docker: new Docker({ socketPath: '/nonexistent/docker.sock' }) });
    try {
      await expect(sb.run({ code: 'print(1)' })).rejects.toBeInstanceOf(SandboxUnavailableError);
      await expect(sb.ready()).rejects.toBeInstanceOf(SandboxUnavailableError);
    } finally {
      await sb.close();
    }
    await expect(sb.run({ code: 'print(1)' })).rejects.toBeInstanceOf(SandboxClosedError);
  });

  it('offers sessions; a session call without a daemon fails with SandboxUnavailableError', async () => {
    const sb = dockerSandbox({ image: 'x', poolSize: 1, docker: new Docker({ socketPath: '/nonexistent/docker.sock' }) });
    expect(sb.supportsSessions).toBe(true);
    const s = await sb.openSession();
    await expect(s.run({ code: 'print(1)' })).rejects.toBeInstanceOf(SandboxUnavailableError);
    await s.close();
    await sb.close();
    await expect(sb.openSession()).rejects.toBeInstanceOf(SandboxClosedError);
  });
});

const probe = await probeDocker();
const withDaemon = probe.ok ? describe : describe.skip;

withDaemon(`dockerSandbox with a daemon${probe.ok ? '' : ` — SKIPPED: ${probe.reason}`}`, () => {
  const docker = new Docker();
  const pools: string[] = [];
  afterAll(async () => {
    // Hazard: containers that outlive close() pile up on the host. (Other files may run pools
    // in parallel, so only this file's pools are checked.)
    for (const id of pools) expect(await sandboxContainers(docker, `agentrl.pool=${id}`)).toEqual([]);
  });

  it('retires a container after a timeout, refills the pool and keeps serving', async () => {
    // Hazard: a killed runner left in the pool would fail every later call.
    const sb = dockerSandbox({ image: TEST_IMAGE, binds: TEST_BINDS, poolSize: 1, preload: ['math'] });
    pools.push(sb.poolId);
    try {
      await sb.ready();
      const t0 = performance.now();
      const r = await sb.run({ code: 'while True: pass', timeoutMs: 800 });
      expect(r.status).toBe('timeout');
      expect(performance.now() - t0).toBeLessThan(800 + 3000);
      expect(sb.stats().retired).toBe(1);
      const next = await sb.run({ code: 'print("fresh")' });
      expect(next.stdout).toBe('fresh\n');
      expect(sb.stats()).toMatchObject({ busy: 0, idle: 1, waiting: 0 });
    } finally {
      await sb.close();
    }
  }, 60_000);

  it('recycles a container after recycleAfter calls and runs calls on a warm pool in parallel', async () => {
    const sb = dockerSandbox({ image: TEST_IMAGE, binds: TEST_BINDS, poolSize: 2, recycleAfter: 2, preload: [] });
    pools.push(sb.poolId);
    try {
      await sb.ready();
      const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => sb.run({ code: `print(${i})` })));
      expect(rs.map((r) => r.stdout)).toEqual(['0\n', '1\n', '2\n', '3\n', '4\n', '5\n']);
      expect(sb.stats().retired).toBeGreaterThanOrEqual(2);
    } finally {
      await sb.close();
    }
  }, 90_000);

  it('rejects with the abort reason and removes the busy container', async () => {
    const sb = dockerSandbox({ image: TEST_IMAGE, binds: TEST_BINDS, poolSize: 1, preload: [] });
    pools.push(sb.poolId);
    try {
      await sb.ready();
      const ac = new AbortController();
      const p = sb.run({ code: 'import time\ntime.sleep(30)', timeoutMs: 60_000 }, ac.signal);
      setTimeout(() => ac.abort(new Error('stop')), 300);
      await expect(p).rejects.toThrow('stop');
      expect((await sb.run({ code: 'print("after")' })).stdout).toBe('after\n');
    } finally {
      await sb.close();
    }
  }, 60_000);

  it('honours DOCKER_HOST through the default client', async () => {
    const saved = process.env['DOCKER_HOST'];
    process.env['DOCKER_HOST'] = saved ?? 'unix:///var/run/docker.sock';
    const sb = dockerSandbox({ image: TEST_IMAGE, binds: TEST_BINDS, poolSize: 1, preload: [] });
    pools.push(sb.poolId);
    try {
      expect((await sb.run({ code: 'import os; print(os.getuid())' })).stdout).toBe('65534\n');
    } finally {
      await sb.close();
      if (saved === undefined) delete process.env['DOCKER_HOST'];
      else process.env['DOCKER_HOST'] = saved;
    }
  }, 60_000);
});
