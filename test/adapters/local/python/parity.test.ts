import { afterAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../src/types/exec-result.js';
import { localSandbox } from '../../../../adapters/local/index.js';
import { dockerSandbox } from '../../../../adapters/docker/index.js';
import { TEST_BINDS, TEST_IMAGE, probeDocker } from '../../docker/docker-env.js';

// The local and the Docker runner once each had their own copy of the code that runs a call; these are the
// differences found between them, now one behaviour (common.py's _exec_user). Each case fails on the runner
// that behaved otherwise: Docker for the first three and the session names, local for the threads and the failed
// flush, both for numpy.random (random itself was reseeded: by os.fork's at-fork hook in Docker, by hand locally).
const docker = await probeDocker();
// Each factory takes the output flood limit: local `maxFileBytes`, Docker `killAfterOutputBytes`.
const sandboxes: [string, (floodBytes?: number) => Sandbox][] = [
  // numpy.random preloaded: the parent's numpy random state is then what every forked call would replay.
  [
    'local fork-server',
    (f) => localSandbox({ workers: 1, mode: 'fork-server', preload: ['math', 'random', 'numpy.random'], ...(f ? { maxFileBytes: f } : {}) }),
  ],
  ['local spawn', (f) => localSandbox({ workers: 1, mode: 'spawn', ...(f ? { maxFileBytes: f } : {}) })],
];
if (docker.ok) {
  sandboxes.push([
    'docker',
    (f) =>
      dockerSandbox({
        image: TEST_IMAGE,
        binds: TEST_BINDS,
        poolSize: 1,
        preload: ['math', 'random', 'numpy.random'],
        ...(f ? { killAfterOutputBytes: f } : {}),
      }),
  ]);
} else it.skip(`docker: ${docker.reason}`, () => undefined);

describe.each(sandboxes)('%s runs model code as the shared runner does', (_name, make) => {
  const sb = make();
  afterAll(() => sb.close());

  it('names the code <sandbox> in tracebacks and shows its source lines (Docker showed <string>, no source)', async () => {
    const r = await sb.run({ code: 'x = 1\nraise ValueError("boom")\n' });
    expect(r.status).toBe('error');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('File "<sandbox>", line 2, in <module>');
    expect(r.stderr).toContain('raise ValueError("boom")');
    expect(r.stderr).not.toContain('runner');
  });

  it("sets sys.argv to ['<sandbox>'] (Docker had ['-c'])", async () => {
    const r = await sb.run({ code: 'import sys; print(sys.argv)' });
    expect(r.stdout).toBe("['<sandbox>']\n");
  });

  it('writes unencodable characters as backslash escapes instead of failing (Docker raised UnicodeEncodeError)', async () => {
    const r = await sb.run({ code: 'print("a\\ud800b")' });
    expect(r.status).toBe('ok');
    expect(r.stdout).toBe('a\\ud800b\n');
  });

  it('waits for non-daemon threads before exit, as python does (local cut them off)', async () => {
    const code =
      'import threading, time\ndef late():\n    time.sleep(0.3)\n    print("late", flush=True)\nthreading.Thread(target=late).start()\nprint("main")';
    const r = await sb.run({ code });
    expect(r.status).toBe('ok');
    expect(r.stdout).toBe('main\nlate\n');
  });

  it('exits 120 when the final flush of stdout fails, as python does (local exited 0)', async () => {
    const r = await sb.run({ code: 'import os, sys\nsys.stdout.write("x")\nos.close(1)' });
    expect(r.status).toBe('error');
    expect(r.exitCode).toBe(120);
  });

  it("gives every call fresh random and numpy.random streams (both replayed the parent's numpy.random state)", async () => {
    const code = 'import random, numpy.random\nprint(random.random(), numpy.random.rand())';
    const [a, b] = [await sb.run({ code }), await sb.run({ code })];
    expect(a.status).toBe('ok');
    const [ra, na] = a.stdout.split(' ');
    const [rb, nb] = b.stdout.split(' ');
    expect(ra).not.toBe(rb);
    expect(na).not.toBe(nb);
  });

  it('ends a call as output_limit when stdout and stderr together reach the flood limit (local counted each stream alone)', async () => {
    const small = make(64 * 1024);
    try {
      const r = await small.run({ code: 'import sys\nsys.stdout.write("o" * 40000)\nsys.stdout.flush()\nsys.stderr.write("e" * 40000)' });
      expect(r.status).toBe('output_limit');
      const fits = await small.run({ code: 'import sys\nsys.stdout.write("o" * 20000)\nsys.stderr.write("e" * 20000)' });
      expect(fits.status).toBe('ok');
    } finally {
      await small.close();
    }
  });

  it('numbers session calls <sandbox N> in tracebacks (Docker showed <string>)', async () => {
    if (!sb.supportsSessions || !sb.openSession) return;
    const s = await sb.openSession();
    try {
      expect((await s.run({ code: 'x = 41' })).status).toBe('ok');
      const r = await s.run({ code: 'x += 1\nraise KeyError(x)' });
      expect(r.stderr).toContain('File "<sandbox 2>", line 2, in <module>');
      expect(r.stderr).toContain('KeyError: 42');
    } finally {
      await s.close();
    }
  });
});
