import { expect } from 'vitest';
import type { ExecResult, RunRequest, Sandbox, SandboxSession } from '../../types/exec-result.js';
import { checked } from './cases.js';
import { processesWithMarker, waitFor } from './proc-scan.js';

/** What a session case gets. */
export interface SessionContext {
  /** The sandbox under test (supports sessions). */
  readonly sandbox: Sandbox;
  /** Opens a session whose `run` checks every result against the shared schema. */
  open(): Promise<SandboxSession>;
  /** A string the snippets put in the argv of processes they start on purpose. */
  readonly marker: string;
  /** Processes of the sandbox itself (warm workers included) carry this; undefined when not known. */
  readonly sandboxMarker: string | undefined;
  /** The sandbox's memory limit per call / session, MiB (0: the case is skipped). */
  readonly memoryMb: number;
  /** Multiplier for wall-time expectations (slow or remote backends). */
  readonly timeScale: number;
}

/** One session case; `name` is what backends use in `skip`. */
export interface SessionCase {
  /** Stable case name; list it in `skip` to skip the case. */
  readonly name: string;
  /** Language of the case's snippets. */
  readonly language: 'python' | 'javascript';
  /** vitest timeout for the case, ms (scaled by `timeScale`). */
  readonly testTimeoutMs?: number;
  /** Runs the case's calls and assertions (vitest `expect`); rejects when the sandbox fails the case. */
  check(ctx: SessionContext): Promise<void>;
}

/** Wraps a session so that every result is schema-checked. */
export function checkedSession(s: SandboxSession): SandboxSession {
  return {
    run: async (req: RunRequest, signal?: AbortSignal): Promise<ExecResult> => checked(await s.run(req, signal)),
    close: () => s.close(),
  };
}

const py = (name: string, check: SessionCase['check'], testTimeoutMs?: number): SessionCase => ({
  name,
  language: 'python',
  check,
  ...(testTimeoutMs === undefined ? {} : { testTimeoutMs }),
});
const js = (name: string, check: SessionCase['check'], testTimeoutMs?: number): SessionCase => ({
  name,
  language: 'javascript',
  check,
  ...(testTimeoutMs === undefined ? {} : { testTimeoutMs }),
});

/** A Python line that starts a process that sleeps with `marker` in its argv, detached from the call. */
const pySleeper = (marker: string) =>
  `import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', '${marker}'], start_new_session=True)`;

/** Session cases: persistence, isolation, per-call limits, ending on timeout, cleanup (issue 20 §4). */
export const SESSION_CASES: readonly SessionCase[] = [
  py('session-persists-state', async ({ open }) => {
    const s = await open();
    try {
      const a = await s.run({ code: 'import fractions\nx = 41\nopen("notes.txt", "w").write("kept")\ndef f(v):\n    return v * 2\nprint("first")' });
      expect(a.status).toBe('ok');
      expect(a.stdout).toBe('first\n');
      const b = await s.run({ code: 'x += 1\nprint(x, f(x), fractions.Fraction(1, 3), open("notes.txt").read())' });
      expect(b).toMatchObject({ status: 'ok', stdout: '42 84 1/3 kept\n', stderr: '' });
      expect(b.sessionReset ?? false).toBe(false);
      // each call has its own streams and status
      const c = await s.run({ code: 'import sys\nprint("out")\nprint("err", file=sys.stderr)\nraise ValueError("boom")' });
      expect(c.status).toBe('error');
      expect(c.stdout).toBe('out\n');
      expect(c.stderr).toContain('ValueError: boom');
      const d = await s.run({ code: 'print(x)' });
      expect(d).toMatchObject({ status: 'ok', stdout: '42\n', stderr: '' });
    } finally {
      await s.close();
    }
  }),
  py('session-isolation', async ({ open }) => {
    const [a, b] = await Promise.all([open(), open()]);
    try {
      const [ra, rb] = await Promise.all([a.run({ code: 'secret = "A-only"\nopen("mine.txt", "w").write("A")\nprint("a")' }), b.run({ code: 'print("b")' })]);
      expect([ra.status, rb.status]).toEqual(['ok', 'ok']);
      const [ra2, rb2] = await Promise.all([
        a.run({ code: 'import os\nprint(secret, os.path.exists("mine.txt"))' }),
        b.run({ code: 'import os\nprint(globals().get("secret"), os.path.exists("mine.txt"))' }),
      ]);
      expect(ra2.stdout).toBe('A-only True\n');
      expect(rb2.stdout).toBe('None False\n');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }),
  py('session-output-cap-per-call', async ({ open }) => {
    const s = await open();
    try {
      const big = await s.run({ code: 'print("x" * 300000)' });
      expect(big.truncated).toBe(true);
      const small = await s.run({ code: 'print("small")' });
      expect(small).toMatchObject({ status: 'ok', stdout: 'small\n', truncated: false });
    } finally {
      await s.close();
    }
  }),
  py(
    'session-timeout-resets',
    async ({ open, marker, timeScale }) => {
      const s = await open();
      const tag = `${marker}-timeout`;
      try {
        await s.run({ code: `x = 1\n${pySleeper(tag)}` });
        expect(await waitFor(() => processesWithMarker(tag).length > 0, 5000)).toBe(true);
        const t = await s.run({ code: 'while True: pass', timeoutMs: 500 * timeScale });
        expect(t.status).toBe('timeout');
        // everything the session started is gone with it
        expect(await waitFor(() => processesWithMarker(tag).length === 0, 5000), `left: ${processesWithMarker(tag).join(',')}`).toBe(true);
        const next = await s.run({ code: 'print(globals().get("x"))' });
        expect(next).toMatchObject({ status: 'ok', stdout: 'None\n', sessionReset: true });
        const after = await s.run({ code: 'print(1)' });
        expect(after.sessionReset ?? false).toBe(false);
      } finally {
        await s.close();
      }
    },
    30_000,
  ),
  py('session-crash-resets', async ({ open }) => {
    const s = await open();
    try {
      await s.run({ code: 'y = 5' });
      const crash = await s.run({ code: 'import os\nos._exit(3)' });
      expect(crash.exitCode).toBe(3);
      const next = await s.run({ code: 'print(globals().get("y"))' });
      expect(next).toMatchObject({ status: 'ok', stdout: 'None\n', sessionReset: true });
    } finally {
      await s.close();
    }
  }),
  py('session-close-kills-everything', async ({ open, marker }) => {
    const s = await open();
    const tag = `${marker}-close`;
    await s.run({ code: pySleeper(tag) });
    expect(await waitFor(() => processesWithMarker(tag).length > 0, 5000)).toBe(true);
    await s.close();
    expect(await waitFor(() => processesWithMarker(tag).length === 0, 5000), `left: ${processesWithMarker(tag).join(',')}`).toBe(true);
    await expect(s.run({ code: 'print(1)' })).rejects.toThrow();
  }),
  py(
    'session-memory-bounded-across-calls',
    async ({ open, memoryMb }) => {
      // Each call keeps 64 MiB more; the session as a whole may not grow past its limit.
      const s = await open();
      try {
        const calls = Math.ceil(memoryMb / 64) + 4;
        let seen: ExecResult | undefined;
        for (let i = 0; i < calls && !seen; i++) {
          const r = await s.run({ code: 'keep = globals().setdefault("keep", [])\nkeep.append(bytearray(64 << 20))\nprint(len(keep))', timeoutMs: 20_000 });
          if (r.status !== 'ok') seen = r;
        }
        expect(seen?.status).toBe('memory');
        const next = await s.run({ code: 'print(len(globals().get("keep", [])))' });
        // A MemoryError leaves the interpreter alive (its earlier state stays); a kill resets the session.
        if (next.sessionReset) expect(next.stdout).toBe('0\n');
        else expect(next.status).toBe('ok');
      } finally {
        await s.close();
      }
    },
    120_000,
  ),
  py(
    'session-100-open-close',
    async ({ open, sandboxMarker }) => {
      const base = sandboxMarker ? processesWithMarker(sandboxMarker).length : 0;
      for (let i = 0; i < 100; i += 10) {
        await Promise.all(
          Array.from({ length: 10 }, async (_, j) => {
            const s = await open();
            const r = await s.run({ code: `v = ${i + j}\nprint(v)` });
            expect(r.stdout).toBe(`${i + j}\n`);
            await s.close();
          }),
        );
      }
      if (sandboxMarker) {
        expect(
          await waitFor(() => processesWithMarker(sandboxMarker).length <= base, 5000),
          `now ${processesWithMarker(sandboxMarker).length}, before ${base}`,
        ).toBe(true);
      }
    },
    180_000,
  ),
  // --- JavaScript (isolated-vm) --------------------------------------------------------------
  js('session-persists-state', async ({ open }) => {
    const s = await open();
    try {
      expect((await s.run({ code: 'var x = 41; function f(v) { return v * 2; } console.log("first")' })).stdout).toBe('first\n');
      const b = await s.run({ code: 'x += 1; console.log(x, f(x))' });
      expect(b).toMatchObject({ status: 'ok', stdout: '42 84\n' });
      const c = await s.run({ code: 'console.log("out"); throw new Error("boom")' });
      expect(c.status).toBe('error');
      expect(c.stdout).toBe('out\n');
      expect((await s.run({ code: 'console.log(x)' })).stdout).toBe('42\n');
    } finally {
      await s.close();
    }
  }),
  js('session-isolation', async ({ open }) => {
    const [a, b] = await Promise.all([open(), open()]);
    try {
      await Promise.all([a.run({ code: 'var secret = "A-only"' }), b.run({ code: 'var other = 1' })]);
      const [ra, rb] = await Promise.all([a.run({ code: 'console.log(secret)' }), b.run({ code: 'console.log(typeof secret)' })]);
      expect(ra.stdout).toBe('A-only\n');
      expect(rb.stdout).toBe('undefined\n');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }),
  js('session-timeout-resets', async ({ open, timeScale }) => {
    const s = await open();
    try {
      await s.run({ code: 'var x = 1' });
      expect((await s.run({ code: 'for (;;) {}', timeoutMs: 300 * timeScale })).status).toBe('timeout');
      const next = await s.run({ code: 'console.log(typeof x)' });
      expect(next).toMatchObject({ status: 'ok', stdout: 'undefined\n', sessionReset: true });
    } finally {
      await s.close();
    }
  }),
  js(
    'session-100-open-close',
    async ({ open }) => {
      for (let i = 0; i < 100; i++) {
        const s = await open();
        expect((await s.run({ code: `console.log(${i})` })).stdout).toBe(`${i}\n`);
        await s.close();
      }
    },
    120_000,
  ),
];
