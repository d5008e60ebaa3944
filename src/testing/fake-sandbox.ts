import type { ExecResult, RunRequest, Sandbox } from '../types/exec-result.js';

/**
 * A {@link Sandbox} that runs nothing: `respond` maps each request to a result (default: echo the
 * code as stdout with status `ok`). Records every request in `requests`.
 */
export function fakeSandbox(respond?: (req: RunRequest) => Partial<ExecResult> | Promise<Partial<ExecResult>>): Sandbox & { readonly requests: RunRequest[] } {
  const requests: RunRequest[] = [];
  return {
    name: 'fake',
    requests,
    async run(req: RunRequest): Promise<ExecResult> {
      requests.push(req);
      const r = respond ? await respond(req) : { stdout: req.code };
      return { status: 'ok', exitCode: 0, stdout: '', stderr: '', truncated: false, wallMs: 0, ...r };
    },
    async close() {},
  };
}
