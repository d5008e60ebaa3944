import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { execResultToResponse, responseToExecResult, type RunCodeResponse } from '../../../adapters/remote/index.js';
import { execResultSchema } from '../../../src/sandbox/index.js';
import { SF_SUCCESS } from './helpers.js';

const sf = (over: Partial<RunCodeResponse> & { run_result?: RunCodeResponse['run_result'] }): RunCodeResponse => ({
  ...(SF_SUCCESS as RunCodeResponse),
  ...over,
});

describe('SandboxFusion response mapping', () => {
  it('maps the documented Success example to ok with the server execution time', () => {
    const r = responseToExecResult(SF_SUCCESS as RunCodeResponse, 99);
    expect(r).toMatchObject({ status: 'ok', exitCode: 0, stdout: 'Hello, world!\n', stderr: '', truncated: false });
    expect(r.wallMs).toBeCloseTo(16.7);
  });

  it('maps TimeLimitExceeded to timeout with no exit code, keeping partial output', () => {
    // Hazard: verl's tool drops partial output on a timeout ("no stdout here"); we keep it.
    const r = responseToExecResult(
      sf({ status: 'Failed', run_result: { status: 'TimeLimitExceeded', execution_time: 10, return_code: null, stdout: 'partial', stderr: '' } }),
      1,
    );
    expect(r).toMatchObject({ status: 'timeout', exitCode: null, stdout: 'partial' });
  });

  it('maps a non-zero exit to error, a trailing MemoryError to memory, SandboxError to sandbox_error', () => {
    const failed = (stderr: string, code = 1) =>
      sf({ status: 'Failed', run_result: { status: 'Finished', execution_time: 0.1, return_code: code, stdout: '', stderr } });
    expect(responseToExecResult(failed('ZeroDivisionError: division by zero\n'), 1).status).toBe('error');
    expect(responseToExecResult(failed('Traceback...\nMemoryError\n'), 1).status).toBe('memory');
    expect(responseToExecResult(sf({ status: 'SandboxError', message: 'preexec_fn failed', run_result: null }), 5)).toMatchObject({
      status: 'sandbox_error',
      stderr: 'preexec_fn failed',
      wallMs: 5,
    });
    expect(
      responseToExecResult(
        sf({ status: 'Failed', compile_result: { status: 'Finished', execution_time: 1, return_code: 1, stdout: '', stderr: 'syntax' }, run_result: null }),
        1,
      ),
    ).toMatchObject({ status: 'error', stderr: 'syntax' });
  });

  it('round-trips every ExecResult exactly through the agentrl extension', () => {
    // Hazard: sandbox-serve losing memory/output_limit/truncated would skew sandbox metrics.
    const arb = fc.record({
      status: fc.constantFrom('ok', 'error', 'timeout', 'memory', 'output_limit', 'sandbox_error' as const),
      exitCode: fc.option(fc.integer({ min: 0, max: 255 }), { nil: null }),
      signal: fc.option(fc.constantFrom('SIGKILL', 'SIGXCPU'), { nil: null }),
      stdout: fc.string(),
      stderr: fc.string(),
      truncated: fc.boolean(),
      wallMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
    });
    fc.assert(
      fc.property(arb, (r) => {
        const back = responseToExecResult(JSON.parse(JSON.stringify(execResultToResponse(r))) as RunCodeResponse, 0);
        expect(execResultSchema.safeParse(back).success).toBe(true);
        expect(back).toEqual(r);
      }),
    );
  });

  it('answers in SandboxFusion terms for non-agentrl clients', () => {
    const base = { exitCode: null, signal: 'SIGKILL', stdout: '', stderr: '', truncated: false, wallMs: 1000 };
    expect(execResultToResponse({ ...base, status: 'timeout' })).toMatchObject({
      status: 'Failed',
      run_result: { status: 'TimeLimitExceeded', return_code: null },
    });
    expect(execResultToResponse({ ...base, status: 'sandbox_error' })).toMatchObject({ status: 'SandboxError', run_result: { status: 'Error' } });
    expect(execResultToResponse({ ...base, status: 'ok', exitCode: 0 })).toMatchObject({
      status: 'Success',
      run_result: { status: 'Finished', return_code: 0, execution_time: 1 },
    });
  });
});
