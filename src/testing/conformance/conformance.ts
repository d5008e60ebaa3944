import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../types/exec-result.js';
import { CONFORMANCE_CASES, checked, type ConformanceContext } from './cases.js';
import { processesWithMarker, waitFor } from './proc-scan.js';
import { SESSION_CASES, checkedSession, type SessionContext } from './session-cases.js';

export { CONFORMANCE_CASES, type ConformanceCase, type ConformanceContext } from './cases.js';
export { processesWithMarker } from './proc-scan.js';
export { SESSION_CASES, type SessionCase, type SessionContext } from './session-cases.js';

/** Options of {@link sandboxConformance}. */
export interface ConformanceOptions {
  /** Which snippets to run. @default 'python' */
  readonly language?: 'python' | 'javascript';
  /** Cases that do not apply to this backend: case name → reason (shown in the skipped test's title). */
  readonly skip?: Readonly<Record<string, string>>;
  /** Pid the `signal-trainer` case aims at. @default process.pid */
  readonly trainerPid?: number;
  /** Multiplier for wall-time expectations and test timeouts (slow or remote backends). @default 1 */
  readonly timeScale?: number;
  /**
   * Processes whose argv contains this string must all be gone once the sandbox is closed
   * (e.g. a string unique to the backend's worker command line). The suite always checks its
   * own marker, which the snippets put into the argv of processes they leave behind.
   */
  readonly leftoverMarker?: string | ((sandbox: Sandbox) => string | undefined);
  /**
   * Run the session cases too (the backend must say `supportsSessions: true`). `memoryMb`: the
   * sandbox's memory limit, for the case that grows a session across calls (omitted: skipped).
   */
  readonly sessions?: { readonly memoryMb?: number };
}

/**
 * Registers the shared sandbox conformance suite (vitest) for one backend. Written once, run
 * against every backend: `make` is called once (after a secret is planted in `process.env`),
 * every applicable case of the chosen language runs in order, then the sandbox is closed and
 * no process started by the suite may remain.
 *
 * @example sandboxConformance('local fork-server', async () => localSandbox({ workers: 2 }));
 */
export function sandboxConformance(name: string, make: () => Promise<Sandbox>, opts: ConformanceOptions = {}): void {
  const language = opts.language ?? 'python';
  const timeScale = opts.timeScale ?? 1;
  const marker = `agentrl-conformance-${randomBytes(6).toString('hex')}`;
  const secretEnvName = `AGENTRL_CONFORMANCE_SECRET_${randomBytes(3).toString('hex').toUpperCase()}`;
  const secret = `sk-planted-${randomBytes(12).toString('hex')}`;
  let sandbox: Sandbox | undefined;
  let decoy: ChildProcess | undefined;
  let decoyExited = false;
  let server: Server | undefined;
  let hostPort = 0;
  let hostDir = '';

  describe(`sandbox conformance: ${name}`, () => {
    beforeAll(async () => {
      process.env[secretEnvName] = secret;
      hostDir = mkdtempSync(join(tmpdir(), 'agentrl-conf-'));
      decoy = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)', marker], { stdio: 'ignore' });
      decoy.on('exit', () => {
        decoyExited = true;
      });
      server = createServer((s) => s.destroy());
      await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
      const addr = server.address();
      hostPort = typeof addr === 'object' && addr ? addr.port : 0;
      sandbox = await make();
    });

    afterAll(async () => {
      await sandbox?.close();
      delete process.env[secretEnvName];
      decoy?.kill('SIGKILL');
      server?.close();
      if (hostDir) rmSync(hostDir, { recursive: true, force: true });
    });

    const ctx = (): ConformanceContext => ({
      sandbox: sandbox!,
      run: async (code, o) => checked(await sandbox!.run({ code, ...o })),
      marker,
      hostDir,
      decoyPid: decoy?.pid ?? -1,
      decoyAlive: () => !decoyExited && decoy?.pid !== undefined && processesWithMarker(marker).includes(decoy.pid),
      trainerPid: opts.trainerPid ?? process.pid,
      secret,
      secretEnvName,
      hostPort,
      timeScale,
    });

    for (const c of CONFORMANCE_CASES.filter((k) => k.language === language)) {
      const reason = opts.skip?.[c.name];
      if (reason !== undefined) it.skip(`${c.name} — not applicable: ${reason}`, () => {});
      else it(c.name, () => c.check(ctx()), (c.testTimeoutMs ?? 30_000) * timeScale);
    }

    if (opts.sessions) {
      const sessionCtx = (): SessionContext => {
        const m = typeof opts.leftoverMarker === 'function' ? opts.leftoverMarker(sandbox!) : opts.leftoverMarker;
        return {
          sandbox: sandbox!,
          open: async () => checkedSession(await sandbox!.openSession!()),
          marker,
          sandboxMarker: m,
          memoryMb: opts.sessions?.memoryMb ?? 0,
          timeScale,
        };
      };
      it('offers sessions (supportsSessions)', () => {
        expect(sandbox!.supportsSessions).toBe(true);
        expect(typeof sandbox!.openSession).toBe('function');
      });
      for (const c of SESSION_CASES.filter((k) => k.language === language)) {
        const reason =
          opts.skip?.[c.name] ?? (c.name === 'session-memory-bounded-across-calls' && !opts.sessions.memoryMb ? 'no memory limit given' : undefined);
        if (reason !== undefined) it.skip(`${c.name} — not applicable: ${reason}`, () => {});
        else it(c.name, () => c.check(sessionCtx()), (c.testTimeoutMs ?? 30_000) * timeScale);
      }
    }

    it('leaves no process behind after close()', async () => {
      // Hazard: daemons, fork bombs or warm workers that outlive the sandbox keep burning CPU.
      await sandbox!.close();
      const ours = (): number[] => processesWithMarker(marker).filter((p) => p !== decoy?.pid);
      expect(await waitFor(() => ours().length === 0, 3000), `left: ${ours().join(',')}`).toBe(true);
      const m = typeof opts.leftoverMarker === 'function' ? opts.leftoverMarker(sandbox!) : opts.leftoverMarker;
      if (m) {
        expect(await waitFor(() => processesWithMarker(m).length === 0, 5000), `left: ${processesWithMarker(m).join(',')}`).toBe(true);
      }
    }, 30_000);
  });
}
